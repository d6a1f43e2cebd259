/**
 * `npm run cli -- cores [--subscription <url|file>] [--core NAME|PATH]`: the cores on this machine
 * as JSON, as the app finds and uses them (app/engine/core-survey.ts): for each its name, version,
 * path, where it was found (bundled, PATH or the setting), its role (the main core, a carrier
 * beside it, or available to be chosen) and what it can run — protocols, transports, securities,
 * features, shadowsocks methods, and which of them its own config test confirmed or refuted.
 * With `--subscription`, each server with the core that carries it (the main core first, then
 * each carrier), or every core's reason why it cannot. `--core` chooses the main core as
 * `connect --core` does. Exit 0 with a main core, 1 without one (the JSON says why), 2 on a
 * usage error.
 */
import type { CoreList, ServerCarrier } from '../../../shared/domain/cores';
import type { Server } from '../../../shared/domain/server';
import { coreListOf } from '../../../app/engine/core-list';
import { surveyCores } from '../../../app/engine/core-survey';
import { Logger, stderrSink } from '../../../app/log/logger';
import { coreOption, readOptions, UsageError } from '../../args';
import { CliError, repositoryResources } from '../support';
import { loadServers } from './connect';

const USAGE = 'usage: npm run cli -- cores [--subscription <url|file>] [--core xray|v2ray|PATH]';

export interface CoresArgs {
  subscription?: string;
  corePath?: string;
}

export function parseCoresArgs(argv: readonly string[]): CoresArgs {
  const { values } = readOptions(argv, { subscription: { type: 'string' }, core: { type: 'string' } }, USAGE);
  const corePath = coreOption(values.core);
  return { ...(values.subscription !== undefined ? { subscription: values.subscription } : {}), ...(corePath !== undefined ? { corePath } : {}) };
}

/** What `cli cores` prints: the list, and with a subscription every server's carrier. */
export type CoresOutput = CoreList & { servers?: ServerCarrier[] };

export async function run(argv: readonly string[]): Promise<number> {
  let args: CoresArgs;
  try {
    args = parseCoresArgs(argv);
  } catch (error) {
    console.error((error as Error).message);
    return error instanceof UsageError ? error.exitCode : 2;
  }
  // Standard output is the JSON; what is said along the way (entries skipped) goes to stderr.
  const logger = new Logger({ level: 'warning', sinks: [stderrSink] });
  let servers: Server[] = [];
  try {
    if (args.subscription) servers = await loadServers(args.subscription, logger);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return error instanceof CliError ? error.exitCode : 1;
  }
  const survey = await surveyCores({ corePath: args.corePath ?? null, resourcesDir: repositoryResources() });
  const { list, carriers } = coreListOf(survey, servers);
  const output: CoresOutput = args.subscription ? { ...list, servers: carriers } : list;
  console.log(JSON.stringify(output, null, 2));
  if (list.problem) console.error(list.problem);
  return list.main ? 0 : 1;
}
