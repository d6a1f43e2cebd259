import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { type HeadlessHost, startHeadlessHost } from '../../../main/headless/host';
import { INVOKE_CHANNELS, type VpnClient } from '../../../shared/ipc/contract';
import { TOKEN_PARAM, WS_PATH } from '../../../shared/ipc/wire';
import { frameVerdict } from './ipc';
import { ensure, show } from './violation';

/**
 * The service behind the host under fuzzing: it answers every channel with null and records
 * what reached it, so a check can tell whether an invalid request got through.
 */
function recordingService(): { service: VpnClient; calls: { channel: string; request: unknown }[] } {
  const calls: { channel: string; request: unknown }[] = [];
  const service = Object.fromEntries(
    INVOKE_CHANNELS.map((channel) => [
      channel,
      async (request: unknown) => {
        calls.push({ channel, request });
        return null;
      },
    ]),
  ) as unknown as VpnClient;
  service.on = () => () => undefined;
  return { service, calls };
}

export interface FrameOutcome {
  answer: Answer;
  serviceCalls: number;
}

interface Answer {
  kind: string;
  id: number;
  ok: boolean;
  error?: string;
}

/**
 * A real headless host on loopback and one authenticated WebSocket client: every text frame gets
 * exactly one answer, an invalid frame a clear error (with its id when it had one) and never a
 * service call, a valid one a result; the connection survives all of it.
 */
export class HostChecker {
  private readonly answers: Answer[] = [];
  private waiting: ((a: Answer) => void) | null = null;
  private closed: string | null = null;

  private constructor(
    private readonly host: HeadlessHost,
    private readonly ws: WebSocket,
    private readonly calls: { channel: string; request: unknown }[],
    private readonly dir: string,
  ) {
    ws.on('message', (data) => {
      const answer = JSON.parse(String(data)) as Answer;
      if (this.waiting) {
        const resolve = this.waiting;
        this.waiting = null;
        resolve(answer);
      } else this.answers.push(answer);
    });
    ws.on('close', (code, reason) => (this.closed = `${code} ${String(reason)}`));
  }

  static async open(): Promise<HostChecker> {
    const dir = mkdtempSync(join(tmpdir(), 'fuzz-host-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>fuzz</title>');
    const { service, calls } = recordingService();
    const host = await startHeadlessHost({ service, rendererDir: dir, token: 'fuzz-token-0123456789abcdef' });
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}${WS_PATH}?${TOKEN_PARAM}=${host.token}`, { origin: host.origin });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new HostChecker(host, ws, calls, dir);
  }

  /** Sends one frame and waits for its answer (the timed part). */
  async apply(frame: string): Promise<FrameOutcome> {
    ensure(this.closed === null, () => `the host closed the connection earlier (${this.closed})`);
    ensure(this.answers.length === 0, () => `an answer nobody asked for: ${show(this.answers.splice(0))}`);
    const callsBefore = this.calls.length;
    const answer = await this.send(frame);
    return { answer, serviceCalls: this.calls.length - callsBefore };
  }

  verify(frame: string, { answer, serviceCalls }: FrameOutcome): void {
    // The host reads the frame as UTF-8: lone surrogates arrive as U+FFFD.
    const verdict = frameVerdict(Buffer.from(frame, 'utf8').toString('utf8'));
    ensure(answer.kind === 'result', () => `answered with ${show(answer)}`);
    if (verdict.valid) {
      ensure(answer.ok === true && answer.id === verdict.id, () => `a valid frame got ${show(answer)}`);
      ensure(serviceCalls === 1, () => `a valid frame reached the service ${serviceCalls} times`);
    } else {
      ensure(answer.ok === false && typeof answer.error === 'string' && answer.error.trim().length > 0, () => `an invalid frame got ${show(answer)}`);
      ensure(answer.error!.length <= 1000, () => `error of ${answer.error!.length} characters`);
      ensure(answer.id === (verdict.id ?? -1), () => `answered id ${answer.id} to a frame with id ${verdict.id}`);
      ensure(serviceCalls === 0, () => `an invalid frame reached the service: ${show(this.calls.at(-1))}`);
    }
    ensure(this.closed === null, () => `the host closed the connection (${this.closed})`);
  }

  private send(frame: string): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        reject(new Error(`no answer within 5 s (connection ${this.closed ?? 'open'})`));
      }, 5000);
      this.waiting = (answer) => {
        clearTimeout(timer);
        resolve(answer);
      };
      this.ws.send(frame);
    });
  }

  async close(): Promise<void> {
    this.ws.terminate();
    await this.host.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
