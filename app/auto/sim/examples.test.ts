/** The example scenarios shipped beside the seed's two (app/auto/sim/scenarios/), each pinned to its story. */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { brief } from '../testing/simulate';
import { runScenario, type SimLine } from './run';
import { parseScenario } from './scenario';

const folder = new URL('./scenarios/', import.meta.url);

async function run(name: string): Promise<SimLine[]> {
  const parsed = parseScenario(readFileSync(new URL(name, folder), 'utf8'));
  if (!parsed.ok) throw new Error(`${name}: ${parsed.error}`);
  return runScenario(parsed.scenario);
}

const decisions = (lines: SimLine[]) => brief(lines, { results: false, end: true });

describe('shipped example scenarios', () => {
  it('freeze.json: five of six servers freeze after 16 KB; Auto starts on the first, moves to the healthy one within seconds, and returns only after A1’s transfer passes twice', async () => {
    const lines = await run('freeze.json');
    expect(brief(lines, { results: false, end: true, transfers: true }).filter((l) => !/transfer-test A6 ok|transfer-test A1 ok$/.test(l) || /^(3300|300480) /.test(l))).toEqual([
      '2740 transfer-test A1 freezes',
      '2740 check freeze A1,A2,A3,A4,A5,A6 after 16384 B',
      '3300 transfer-test A6 ok',
      '5030 transfer-test A2 freezes',
      '5040 transfer-test A3 freezes',
      '5050 transfer-test A4 freezes',
      '5060 transfer-test A5 freezes',
      '5060 switch A1>A6 current-silent',
      '300000 check scheduled A6,A1,A2,A3',
      '300480 transfer-test A1 ok',
      '300480 stay A6 return-pending A1 1/2',
      '600000 check scheduled A6,A1,A2,A3',
      '600080 switch A6>A1 return',
      'end current=A1',
    ]);
    // Watched while in use: A6 once a minute (its first test is the check's own, 2 s before the switch).
    const a6 = lines.filter((l) => l.type === 'transfer-test' && l.id === 'A6' && l.at > 5060 && l.at < 300_000).map((l) => l.at);
    expect(a6).toHaveLength(4);
    expect(a6[0]! - 3300).toBeLessThanOrEqual(61_000);
  });

  it('rate-limit.json: servers fall one after another; the fourth switch waits for the 3-minute window', async () => {
    expect(decisions(await run('rate-limit.json'))).toEqual([
      '65000 check stall s1,s2,s3,s4,s5',
      '65000 switch s1>s2 current-silent',
      '85000 check stall s2,s3,s4,s5,s1',
      '85000 switch s2>s3 current-silent',
      '105000 check stall s3,s4,s5,s2,s1',
      '105000 switch s3>s4 current-silent',
      '125000 check stall s4,s5,s3,s2,s1',
      '125000 rate-limited until 245000',
      '245000 check stall s4,s5,s3,s2,s1',
      '245800 switch s4>s5 current-silent',
      'end current=s5',
    ]);
  });

  it('exclusions.json: marking the current server moves Auto, the last unmarked one cannot be marked, only marked ones left → chosen among them', async () => {
    expect(decisions(await run('exclusions.json'))).toEqual([
      '60000 switch fi>nl excluded',
      '60071 event-test nl 71',
      '180000 refused exclude',
      '240000 switch nl>fi server-removed',
      '240060 event-test fi 60',
      'end current=fi',
    ]);
  });

  it('server-removed.json: the current server vanishes in an update → the best remaining at once', async () => {
    expect(decisions(await run('server-removed.json'))).toEqual(['120000 switch fi>nl server-removed', '120071 event-test nl 71', 'end current=nl']);
  });

  it('neighbour-subscription.json: own subscription down → widened → neighbour; own retries pause after 5 failures; back after two answers', async () => {
    const lines = await run('neighbour-subscription.json');
    expect(decisions(lines).filter((l) => !/ (stay|check) .*(current-answered|scheduled)/.test(l))).toEqual([
      '125000 check stall a1,a2,a3',
      '127500 check neighbour-sub b1,b2',
      '127570 stay a1 own-subscription-silent',
      '130000 pause after-check until 142570',
      '143000 check widened a1,a2,a3',
      '148000 check neighbour-sub b1,b2',
      '148070 switch a1>b1 neighbour-subscription',
      '208070 check own-sub-retry b1,a1,a2,a3',
      '213070 stay b1 own-subscription-silent',
      '268070 check own-sub-retry b1,a1,a2,a3',
      '273070 stay b1 own-subscription-silent',
      '328070 check own-sub-retry b1,a1,a2,a3',
      '333070 stay b1 own-subscription-silent',
      '388070 check own-sub-retry b1,a1,a2,a3',
      '393070 stay b1 own-subscription-silent',
      '448070 check own-sub-retry b1,a1,a2,a3',
      '453070 stay b1 own-subscription-silent',
      '453070 pause own-sub-retry until 1353070',
      // A is back at 20 m; the retries resume after the 15 min pause.
      '1353070 check own-sub-retry b1,a1,a2,a3',
      '1353120 stay b1 return-pending a1 1/2',
      '1413070 check own-sub-retry b1,a1,a2,a3',
      '1413120 switch b1>a1 return',
      'end current=a1',
    ]);
  });

  it('idle.json: an idle device is never probed, even when its server dies', async () => {
    const lines = await run('idle.json');
    expect(decisions(lines)).toEqual(['end current=fi']);
    expect(lines.at(-1)).toMatchObject({ history: { fi: [60, 61, 62], de: [20, 25, 300], nl: [70, 72, 71] } });
  });

  it('every shipped scenario is valid', () => {
    const names = readdirSync(folder).filter((n) => n.endsWith('.json'));
    expect(names.sort()).toEqual(['exclusions.json', 'freeze.json', 'group.json', 'idle.json', 'neighbour-subscription.json', 'network-lost.json', 'rate-limit.json', 'server-removed.json', 'server-silent.json']);
    for (const name of names) expect(parseScenario(readFileSync(new URL(name, folder), 'utf8'))).toMatchObject({ ok: true });
  });

  it('group.json: a group of US servers beside the main connection; its pick switches alone, the main one switches alone, the whole group down blocks it until a member answers twice', async () => {
    const lines = await run('group.json');
    const switches = lines.filter((l) => l.type === 'switch').map((l) => `${l.at} ${l.group ?? 'main'} ${l.from}>${l.to} ${l.reason}${l.down ? ' down' : ''}`);
    expect(switches).toEqual([
      // us1 down at 1 m: only the group moves, 5 s of its own stalled traffic later.
      '65000 US us1>us2 current-silent',
      // fi down at 3 m: only the main connection moves (the group's members are excluded from it).
      '185000 main fi>de current-silent',
      // us1 back at 6 m: the group returns once it answered two scheduled checks in a row.
      '900150 US us2>us1 return',
      // Every member down at 15 m while the others answer: the group is down, its traffic blocked.
      '940500 US us1>de neighbour-subscription down',
      // us3 back at 20 m: the members' once-a-minute check brings the group back to it.
      '1305500 US de>us3 return',
    ]);
    expect(lines.at(-1)).toMatchObject({ type: 'end', current: 'de', groups: { US: 'us3' } });
  });
});
