// `npm run fetch-cores -- [--target <platform>-<arch> | --platform <platform>] [--base-url URL]` (see
// fetch-cores.ts); the arch defaults to this machine's, as electron-builder's does.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FetchCoresError, fetchCores, readPins } from './fetch-cores';

const root = join(import.meta.dirname, '..', '..', '..');
const { values } = parseArgs({ options: { target: { type: 'string' }, platform: { type: 'string' }, 'base-url': { type: 'string' } } });
const target = values.target ?? `${values.platform ?? process.platform}-${process.arch}`;
try {
  const written = await fetchCores({ pins: await readPins(join(root, 'resources', 'core', 'pins.json')), target, coreDir: join(root, 'resources', 'core'), baseUrl: values['base-url'] });
  for (const path of written) process.stdout.write(`fetch-cores: ${path}\n`);
} catch (error) {
  process.stderr.write(`fetch-cores: ${error instanceof FetchCoresError || error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
