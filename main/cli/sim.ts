/**
 * `npm run sim -- FILE.json [--log]`: runs Auto against a simulated world on a virtual clock
 * (contract: spec/scenario.md) and prints one JSON object per line. `--log` also writes the
 * runtime's `AUTO` log lines to stderr. A malformed scenario exits with status 2 and one line
 * naming the field at fault.
 */
import { readFile } from 'node:fs/promises';
import { Logger, stderrSink } from '../../app/log/logger';
import { runScenario } from '../../app/auto/sim/run';
import { parseScenario } from '../../app/auto/sim/scenario';

async function main(argv: string[]): Promise<number> {
  const file = argv.find((a) => !a.startsWith('--'));
  if (!file) {
    console.error('usage: npm run sim -- SCENARIO.json [--log]');
    return 2;
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    console.error(`scenario: cannot read ${file} (${error instanceof Error ? error.message : String(error)})`);
    return 2;
  }
  const parsed = parseScenario(text);
  if (!parsed.ok) {
    console.error(parsed.error);
    return 2;
  }
  const logger = argv.includes('--log') ? new Logger({ sinks: [stderrSink] }) : undefined;
  const lines = await runScenario(parsed.scenario, logger ? { logger } : {});
  process.stdout.write(lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  },
);
