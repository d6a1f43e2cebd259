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
import type { z } from 'zod';
import { type ArgvCommand, applyCommands, type CapturePlan, captureRuleset, ipv6VerdictCommand, isAlreadyGone, removalCommands } from './policy/capture-plan';
import { type capturePlanSchema, HELPER_READY, type HelperReply, helperRequestSchema } from './helper-protocol';
import { killSwitchOff, killSwitchOn } from '../kill-switch/helper-side';
import { PerAppCgroups } from '../per-app/helper-side';

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

/** What the app asks for: the capture plan with per-app choice as a request (programs, not yet a cgroup). */
type CaptureRequest = z.infer<typeof capturePlanSchema>;

/** The session's per-app cgroups: the one a signal's clean-up must take back too (one session per helper process). */
let sessionPerApp: PerAppCgroups | null = null;

/**
 * Removes every trace of capture, per-app cgroups included (the session's, else what a killed
 * helper left); returns what could not be removed (empty: all gone).
 */
export async function removeCapture(run: ArgvRunner, perApp: PerAppCgroups | null = sessionPerApp): Promise<string[]> {
  const failures: string[] = [];
  for (const command of removalCommands()) {
    const outcome = await run(command);
    if (outcome.code !== 0 && !isAlreadyGone(outcome.stderr)) failures.push(`${describe(command)}: ${outcome.stderr.trim() || `exit ${String(outcome.code)}`}`);
  }
  // After the rules: while they stand, a process moved back early would be matched the wrong way.
  // Without a session (recovery after everything was killed), what a killed helper's own hierarchy held is swept too.
  failures.push(...(await (perApp ? perApp.remove() : new PerAppCgroups(run).remove({ mountIfNone: true }))));
  return failures;
}

async function applyCapture(run: ArgvRunner, perApp: PerAppCgroups, request: CaptureRequest): Promise<HelperReply> {
  await removeCapture(run, perApp);
  let matched;
  try {
    matched = await perApp.apply(request.perApp, (line) => process.stderr.write(`${line}\n`));
  } catch (error) {
    await removeCapture(run, perApp);
    return { ok: false, error: `per-app choice could not be set up: ${error instanceof Error ? error.message : String(error)}` };
  }
  const plan = { ...request, perApp: matched.plan };
  for (const command of applyCommands(plan)) {
    const outcome = await run(command);
    if (outcome.code !== 0) {
      // Half a capture is worse than none: take back what went in.
      await removeCapture(run, perApp);
      return { ok: false, error: `${describe(command)} failed: ${outcome.stderr.trim() || `exit ${String(outcome.code)}`}` };
    }
  }
  const detail = plan.method === 'tproxy' ? 'nftables TPROXY (TCP, UDP) with policy routing' : 'nftables REDIRECT (TCP)';
  return request.perApp ? { ok: true, detail, perApp: { matched: matched.matched, skipped: matched.skipped } } : { ok: true, detail };
}

/** The probe checks the rules alone: its per-app part is the uids (nothing is moved for a check). */
function probePlan(request: CaptureRequest): CapturePlan {
  return { ...request, perApp: request.perApp ? { mode: request.perApp.mode, uids: request.perApp.uids, cgroup: null } : null };
}

/**
 * Serves one session: requests in, replies out, until `end` or the end of the input. Capture is
 * removed on the way out whatever ended the session.
 */
export async function serveHelperSession(input: Readable, output: Writable, run: ArgvRunner = execArgv, perApp: PerAppCgroups = new PerAppCgroups(run)): Promise<void> {
  sessionPerApp = perApp;
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
        const outcome = await run({ file: 'nft', args: ['-c', '-f', '-'], input: captureRuleset(probePlan(request.plan)) });
        reply(outcome.code === 0 ? { ok: true, detail: 'check passed' } : { ok: false, error: outcome.stderr.trim() || `nft exit ${String(outcome.code)}` });
        break;
      }
      case 'apply': {
        reply(await applyCapture(run, perApp, request.plan));
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
        const failures = await removeCapture(run, perApp);
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
  await removeCapture(run, perApp);
}
