/**
 * The kill switch where it runs (Linux, a host that can start the helper); found in force from an
 * earlier run, it is put on the board with its "turn off". Elsewhere a setting that asks for it is
 * logged: Windows and macOS have its config generation only (policy/platform-kill-switch.ts).
 */
import type { Settings } from '../../shared/settings';
import type { Logger } from '../log/logger';
import type { HelperMode, LaunchCommand } from '../system-wide/linux/policy/elevation';
import { KillSwitch } from '../system-wide/kill-switch/kill-switch';
import { KillSwitchFollower } from '../system-wide/kill-switch/follow-settings';
import type { ProblemBoard } from './problems';

export async function startKillSwitch(o: {
  dataDir: string;
  logger: Logger;
  board: ProblemBoard;
  settings: () => Settings;
  servers: () => readonly { address: string }[];
  launch: ((mode: HelperMode) => LaunchCommand) | undefined;
}): Promise<KillSwitchFollower | null> {
  if (process.platform !== 'linux' || !o.launch) {
    if (o.settings().killSwitch) o.logger.warn('ENGINE', 'the kill switch is not available in this host');
    return null;
  }
  const { follower, left, since } = await KillSwitchFollower.start({
    killSwitch: new KillSwitch({ dataDir: o.dataDir, logger: o.logger, launch: o.launch, problems: o.board }),
    wanted: o.settings,
    servers: o.servers,
    logger: o.logger,
    onProblem: (detail) => {
      if (detail) o.board.raise({ topic: { kind: 'system-wide' }, detail }, 'error');
      if (!o.settings().killSwitch) o.board.clear({ kind: 'kill-switch-left', since: null });
    },
  });
  if (left) o.board.raiseAtStart({ topic: { kind: 'kill-switch-left', since }, detail: left });
  return follower;
}
