// A stand-in for the app in the rule sets' HTTPS test: the engine's own rule-set pieces update one
// set, in a process of their own, because Node reads its trusted certificates
// (NODE_EXTRA_CA_CERTS) only at start. Prints the set's status as one JSON line.
import { ruleSetSchema } from '../../../shared/rule-sets';
import { systemClock } from '../../clock';
import { detectCore } from '../../core';
import { memoryLogger } from '../../log/logger';
import { ruleSetPieces } from '../rule-sets';

const [dataDir, url, xrayPath] = process.argv.slice(2);
if (!dataDir || !url || !xrayPath) throw new Error('usage: rule-set-update-once.ts <data dir> <url> <xray path>');
const set = ruleSetSchema.parse({ id: 'geo', name: 'Lab names', url, format: 'geosite-dat', list: 'labset', outbound: 'direct', enabled: true });
const pieces = await ruleSetPieces({
  dataDir,
  logger: memoryLogger('info').logger,
  clock: systemClock,
  router: await detectCore(xrayPath),
  carriers: [],
  tunnelProxy: () => null,
  sets: () => [set],
  problems: { raise: () => undefined },
});
const status = await pieces.store.update(set);
await pieces.close();
process.stdout.write(`${JSON.stringify(status)}\n`);
