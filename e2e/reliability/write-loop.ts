/**
 * `node --import tsx write-loop.ts DIR SERVERS`: saves DIR/subscriptions.json through the app's
 * own JsonFile over and over (a document of SERVERS servers, a counter in each server's name) and
 * prints "saved" after the first save. The files test kills it with SIGKILL at random moments
 * and checks the file on disk always parses.
 */
import { subscriptionsFile } from '../../app/subscriptions/store';
import { assignIds } from '../../app/subscriptions/identity';
import { parseSubscription } from '../../app/subscriptions/parse';

const [dir, count] = [process.argv[2] as string, Number(process.argv[3] ?? 2000)];
const links = Array.from({ length: count }, (_, i) => {
  const hex = i.toString(16).padStart(12, '0');
  return `vless://00000000-0000-4000-8000-${hex}@127.0.0.1:${1 + (i % 60000)}?type=tcp&security=none#server-${i}`;
});
const servers = assignIds('loop', [], parseSubscription(links.join('\n')).servers);
const file = subscriptionsFile(dir);

async function main(): Promise<void> {
  for (let round = 0; ; round++) {
    await file.save({
      version: 1,
      subscriptions: [
        {
          id: 'loop',
          name: `round ${round}`,
          servers: servers.map((s) => ({ ...s, name: `${s.name} (round ${round})` })),
          usage: null,
          rejected: [],
          updatedAt: round,
          lastError: null,
          pendingEmpty: false,
        },
      ],
    });
    if (round === 0) process.stdout.write('saved\n');
  }
}

void main();
