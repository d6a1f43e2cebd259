/**
 * `npm run cli -- kill-switch off|status`: `off` removes the kill switch's rules (Linux, through the
 * privileged helper: root directly, pkexec otherwise) and its record, so direct traffic works again
 * at once; `status` says whether an earlier run left it in force. The kill switch is turned on by
 * `connect … --kill-switch` and stays on after the command ends, by design.
 */
import { KillSwitch } from '../../../app/system-wide/kill-switch/kill-switch';
import { Logger, stderrSink } from '../../../app/log/logger';
import { defaultDataDir } from '../../../app/paths';
import { readOptions, UsageError } from '../../args';
import { checkoutHelperLaunch } from '../../helper/launch';

const USAGE = 'usage: npm run cli -- kill-switch off|status';

export async function run(argv: string[]): Promise<number> {
  let action: string | undefined;
  try {
    const { positionals } = readOptions(argv, {}, USAGE, true);
    action = positionals[0];
    if (positionals.length !== 1 || (action !== 'off' && action !== 'status')) throw new UsageError(USAGE);
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  if (process.platform !== 'linux') {
    console.error('the kill switch runs on Linux here; on Windows and macOS the app turns it off');
    return 1;
  }
  const killSwitch = new KillSwitch({ dataDir: defaultDataDir(), logger: new Logger({ level: 'warning', sinks: [stderrSink] }), launch: checkoutHelperLaunch });
  const left = await killSwitch.load();
  if (action === 'status') {
    console.log(left ?? 'The kill switch is off.');
    return 0;
  }
  try {
    // Off even without a record: the rules may be there from a run whose data folder is gone.
    await killSwitch.off();
    console.log('kill switch: off; direct traffic works again');
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}
