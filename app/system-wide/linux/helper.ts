/**
 * The privileged side of system-wide mode on Linux, run as root (directly when the app already is,
 * through pkexec otherwise). It is also the watchdog: it holds a pipe from the app, and when that
 * pipe closes without an `end` — the app crashed, was killed with -9, lost power to its terminal —
 * or the helper itself is asked to stop by a signal, it removes the capture before it exits. The
 * machine is never left with its traffic pointed at a core that is not there.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { type ArgvCommand, applyCommands, captureRuleset, ipv6VerdictCommand, isAlreadyGone, removalCommands } from './policy/capture-plan';
import { HELPER_READY, type HelperReply, helperRequestSchema } from './helper-protocol';
import { killSwitchOff, killSwitchOn } from '../kill-switch/helper-side';

export interface CommandOutcome {
  code: number | null;
  stderr: string;
}
export type ArgvRunner = (command: ArgvCommand) => Promise<CommandOutcome>;

/** Runs a command without a shell, feeding it `input`; a missing binary is code null, not a throw. */
export const execArgv: ArgvRunner = (command) =>
  new Promise((resolve) => {
    const child = spawn(command.file, command.args, { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 8000) stderr += chunk;
    });
    child.on('error', (error) => resolve({ code: null, stderr: `${stderr}${error.message}` }));
    child.on('close', (code) => resolve({ code, stderr }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(command.input ?? '');
  });

const describe = (c: ArgvCommand) => [c.file, ...c.args].join(' ');

/** Removes every trace of capture; returns what could not be removed (empty: all gone). */
export async function removeCapture(run: ArgvRunner): Promise<string[]> {
  const failures: string[] = [];
  for (const command of removalCommands()) {
    const outcome = await run(command);
    if (outcome.code !== 0 && !isAlreadyGone(outcome.stderr)) failures.push(`${describe(command)}: ${outcome.stderr.trim() || `exit ${String(outcome.code)}`}`);
  }
  return failures;
}

async function applyCapture(run: ArgvRunner, plan: Parameters<typeof applyCommands>[0]): Promise<HelperReply> {
  await removeCapture(run);
  for (const command of applyCommands(plan)) {
    const outcome = await run(command);
    if (outcome.code !== 0) {
      // Half a capture is worse than none: take back what went in.
      await removeCapture(run);
      return { ok: false, error: `${describe(command)} failed: ${outcome.stderr.trim() || `exit ${String(outcome.code)}`}` };
    }
  }
  return { ok: true, detail: plan.method === 'tproxy' ? 'nftables TPROXY (TCP, UDP) with policy routing' : 'nftables REDIRECT (TCP)' };
}

/**
 * Serves one session: requests in, replies out, until `end` or the end of the input. Capture is
 * removed on the way out whatever ended the session.
 */
export async function serveHelperSession(input: Readable, output: Writable, run: ArgvRunner = execArgv): Promise<void> {
  const reply = (message: HelperReply) => output.write(`${JSON.stringify(message)}\n`);
  output.write(`${HELPER_READY}\n`);
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let request;
    try {
      request = helperRequestSchema.parse(JSON.parse(line));
    } catch (error) {
      reply({ ok: false, error: `refused request: ${error instanceof Error ? error.message.slice(0, 300) : 'unreadable'}` });
      continue;
    }
    switch (request.op) {
      case 'probe': {
        const outcome = await run({ file: 'nft', args: ['-c', '-f', '-'], input: captureRuleset(request.plan) });
        reply(outcome.code === 0 ? { ok: true, detail: 'check passed' } : { ok: false, error: outcome.stderr.trim() || `nft exit ${String(outcome.code)}` });
        break;
      }
      case 'apply': {
        reply(await applyCapture(run, request.plan));
        break;
      }
      case 'ipv6': {
        const outcome = await run(ipv6VerdictCommand(request.ipv6));
        reply(outcome.code === 0 ? { ok: true, detail: `IPv6 ${request.ipv6 === 'capture' ? 'captured' : 'blocked'}` } : { ok: false, error: outcome.stderr.trim() || `nft exit ${String(outcome.code)}` });
        break;
      }
      case 'kill-switch-on': {
        reply(await killSwitchOn(run, request.plan));
        break;
      }
      case 'kill-switch-off': {
        reply(await killSwitchOff(run));
        break;
      }
      case 'lift':
      case 'end': {
        const failures = await removeCapture(run);
        reply(failures.length === 0 ? { ok: true, detail: 'removed' } : { ok: false, error: failures.join('; ') });
        if (request.op === 'end') {
          lines.close();
          return;
        }
        break;
      }
    }
  }
  // The app went away without saying `end`: it crashed or was killed. Undo whatever it had — of
  // the capture: a kill switch stays in force by design until the user turns it off.
  await removeCapture(run);
}
