import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Logger } from '../../log/logger';
import { SerialQueue } from '../../process/serial-queue';
import { HELPER_READY, type HelperReply, type HelperRequest, helperReplySchema } from './helper-protocol';
import { elevationRefusal, type LaunchCommand } from './policy/elevation';

const TAG = 'SYSWIDE';

/**
 * The app's end of one helper session. The helper runs in its own process group (Ctrl-C in the
 * app's terminal does not reach it), so it outlives the app long enough to undo the capture when
 * the app dies; it ends when asked to (`end`), or when the pipe from the app closes.
 */
export class HelperClient {
  private readonly requests = new SerialQueue();
  private readonly replies: ((reply: HelperReply) => void)[] = [];
  private exitedWith: string | null = null;
  readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly logger: Logger,
  ) {
    this.exited = new Promise((resolve) => child.once('close', () => resolve()));
  }

  /** Starts the helper and waits until it runs with its rights (the password prompt comes first). */
  static start(command: LaunchCommand, logger: Logger, readyTimeoutMs = 120_000): Promise<HelperClient> {
    const child = spawn(command.file, command.args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const client = new HelperClient(child, logger);
    return new Promise((resolve, reject) => {
      let stderr = '';
      let ready = false;
      const timer = setTimeout(() => {
        child.kill('SIGTERM');
        reject(new Error('the capture helper did not start in time'));
      }, readyTimeoutMs);
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-2000);
        for (const line of chunk.split('\n').filter(Boolean)) logger.warn(TAG, `helper: ${line}`);
      });
      child.stdin?.on('error', () => undefined);
      const lines = createInterface({ input: child.stdout! });
      lines.on('line', (line) => {
        if (!ready) {
          if (line !== HELPER_READY) return;
          ready = true;
          clearTimeout(timer);
          resolve(client);
          return;
        }
        const parsed = helperReplySchema.safeParse(safeJson(line));
        const waiter = client.replies.shift();
        waiter?.(parsed.success ? parsed.data : { ok: false, error: `unreadable reply from the helper: ${line.slice(0, 200)}` });
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(new Error(`the capture helper could not be started: ${error.message}`));
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        client.exitedWith = `exited (${signal ?? `code ${String(code)}`})`;
        for (const waiter of client.replies.splice(0)) waiter({ ok: false, error: `the capture helper ${client.exitedWith}` });
        if (!ready) reject(new Error(elevationRefusal(code) ?? `the capture helper ${client.exitedWith}${stderr.trim() ? `: ${stderr.trim()}` : ''}`));
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exitedWith === null;
  }

  /** One request, one reply; requests run one at a time in call order. */
  request(request: HelperRequest): Promise<HelperReply> {
    return this.requests.run(
      () =>
        new Promise<HelperReply>((resolve) => {
          if (!this.alive || !this.child.stdin?.writable) {
            resolve({ ok: false, error: `the capture helper ${this.exitedWith ?? 'is not running'}` });
            return;
          }
          this.replies.push(resolve);
          this.child.stdin.write(`${JSON.stringify(request)}\n`);
        }),
    );
  }

  /** Capture off and the helper gone (killed if it does not answer in time). */
  async end(timeoutMs = 5000): Promise<HelperReply> {
    const reply = await Promise.race([
      this.request({ op: 'end' }),
      new Promise<HelperReply>((resolve) => setTimeout(() => resolve({ ok: false, error: 'the capture helper did not answer' }), timeoutMs).unref()),
    ]);
    this.child.stdin?.end();
    if (this.alive) {
      // Closing its input is the helper's cue to clean up and leave; a TERM does the same.
      const timer = setTimeout(() => this.child.kill('SIGTERM'), timeoutMs);
      await this.exited;
      clearTimeout(timer);
    }
    if (!reply.ok) this.logger.warn(TAG, `ending the capture helper: ${reply.error}`);
    return reply;
  }
}

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}
