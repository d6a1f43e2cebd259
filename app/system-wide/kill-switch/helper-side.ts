/**
 * What the privileged helper does for the kill switch (linux/helper.ts serves the requests): one
 * nft command each, built from a validated plan. Neither the end of a session nor any signal
 * removes the kill switch: that it holds while the app is gone is the point of it.
 */
import type { HelperReply } from '../linux/helper-protocol';
import { type ArgvCommand, isAlreadyGone } from '../linux/policy/capture-plan';
import { type KillSwitchPlan, killSwitchOffCommand, killSwitchOnCommand } from './policy/kill-switch-rules';

/** The helper's way of running a command as root (linux/helper.ts's execArgv, a recorder in tests). */
type ArgvRunner = (command: ArgvCommand) => Promise<{ code: number | null; stderr: string }>;

export async function killSwitchOn(run: ArgvRunner, plan: KillSwitchPlan): Promise<HelperReply> {
  let command;
  try {
    command = killSwitchOnCommand(plan);
  } catch (error) {
    return { ok: false, error: `refused kill switch plan: ${error instanceof Error ? error.message : String(error)}` };
  }
  const outcome = await run(command);
  if (outcome.code !== 0) return { ok: false, error: `nft failed: ${outcome.stderr.trim().slice(0, 1500) || `exit ${String(outcome.code)}`}` };
  return { ok: true, detail: `kill switch in force: ${plan.servers.length} server address(es) allowed${plan.allowLan ? ', LAN allowed' : ''}` };
}

export async function killSwitchOff(run: ArgvRunner): Promise<HelperReply> {
  const outcome = await run(killSwitchOffCommand());
  if (outcome.code === 0 || isAlreadyGone(outcome.stderr)) return { ok: true, detail: 'kill switch off' };
  return { ok: false, error: `nft failed: ${outcome.stderr.trim().slice(0, 1500) || `exit ${String(outcome.code)}`}` };
}
