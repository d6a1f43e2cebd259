import { describe, expect, it } from 'vitest';
import { type LineupServer, casesFor, casesOnCore, lineupFor, marksLeaving, parseKinds } from './cases';

// Subscription A as the bench serves it with both modern kinds: four plain servers, then RC1 and RC7.
const A: LineupServer[] = [
  { id: 'a1', kind: 'plain' },
  { id: 'a2', kind: 'plain' },
  { id: 'a3', kind: 'plain' },
  { id: 'a4', kind: 'plain' },
  { id: 'rc1', kind: 'reality' },
  { id: 'rc7', kind: 'hysteria2' },
];
const find = (name: string) => casesFor(['plain', 'reality', 'hysteria2']).find((c) => c.name === name)!;

describe('casesFor', () => {
  it('runs plain first, then each modern kind from and to it', () => {
    expect(casesFor(['hysteria2', 'plain', 'reality']).map((c) => c.name)).toEqual(['plain', 'from-reality', 'to-reality', 'from-hysteria2', 'to-hysteria2']);
  });

  it('leaves out the kinds not chosen', () => {
    expect(casesFor(['reality']).map((c) => c.name)).toEqual(['from-reality', 'to-reality']);
    expect(casesFor(['plain']).map((c) => c.name)).toEqual(['plain']);
  });
});

describe('parseKinds', () => {
  it('reads a comma list, blanks and repeats dropped', () => {
    expect(parseKinds('plain, reality,plain')).toEqual(['plain', 'reality']);
  });

  it.each([
    ['an unknown kind', 'plain,tuic', /unknown kind\(s\): tuic; choose from plain, reality, hysteria2/],
    ['nothing', ' , ', /at least one of plain, reality, hysteria2/],
  ])('refuses %s with the choices', (_what, text, message) => {
    expect(() => parseKinds(text)).toThrow(message);
  });
});

describe('lineupFor', () => {
  it.each([
    // case, unmarked while Auto is turned on, unmarked from then on (Auto settled on `on`), where it should land
    { name: 'plain', on: 'a2', settle: ['a1', 'a2', 'a3', 'a4'], trial: ['a1', 'a2', 'a3', 'a4'], to: 'plain' },
    { name: 'from-reality', on: 'rc1', settle: ['rc1'], trial: ['rc1', 'a1', 'a2', 'a3', 'a4'], to: 'plain' },
    { name: 'to-reality', on: 'a3', settle: ['a1', 'a2', 'a3', 'a4'], trial: ['a3', 'rc1'], to: 'reality' },
    { name: 'from-hysteria2', on: 'rc7', settle: ['rc7'], trial: ['rc7', 'a1', 'a2', 'a3', 'a4'], to: 'plain' },
    { name: 'to-hysteria2', on: 'a1', settle: ['a1', 'a2', 'a3', 'a4'], trial: ['a1', 'rc7'], to: 'hysteria2' },
  ])('$name: Auto settles among $settle, then may take $trial', ({ name, on, settle, trial, to }) => {
    const lineup = lineupFor(find(name), A);
    expect(lineup.settleUnmarked).toEqual(settle);
    expect(lineup.trialUnmarked(on)).toEqual(trial);
    expect(lineup.expectedTo).toBe(to);
  });

  it('never leaves a modern server to the plain case', () => {
    const lineup = lineupFor(find('plain'), A);
    expect(marksLeaving(A, lineup.settleUnmarked)).toEqual(['rc1', 'rc7']);
    expect(marksLeaving(A, lineup.trialUnmarked('a1'))).toEqual(['rc1', 'rc7']);
  });

  it('refuses a case its subscription cannot stage', () => {
    const plainOnly = A.filter((s) => s.kind === 'plain');
    expect(() => lineupFor(find('to-reality'), plainOnly)).toThrow("to-reality: Auto's subscription has no vless-reality-vision server");
    expect(() => lineupFor(find('plain'), [A[0]!, A[4]!])).toThrow('the plain case needs two plain servers');
    expect(() => lineupFor(find('from-hysteria2'), [A[5]!])).toThrow("from-hysteria2: Auto's subscription has no plain server");
  });
});

describe('marksLeaving', () => {
  it('marks every server but the ones left, in list order', () => {
    expect(marksLeaving(A, ['a3', 'rc7'])).toEqual(['a1', 'a2', 'a4', 'rc1']);
  });
});

describe('casesOnCore', () => {
  it('runs every case on a core that carries both modern servers itself', () => {
    const { run, skipped } = casesOnCore(casesFor(['plain', 'reality', 'hysteria2']), {}, 'xray 26.3.27');
    expect(run).toHaveLength(5);
    expect(skipped).toEqual([]);
  });

  it('skips the cases of a server another core would carry, with what the engine said', () => {
    const said = 'carried by sing-box 1.14.1: not supported by v2ray 4.34.0: REALITY needs Xray';
    const { run, skipped } = casesOnCore(casesFor(['plain', 'reality', 'hysteria2']), { reality: said }, 'v2ray 4.34.0');
    expect(run.map((c) => c.name)).toEqual(['plain', 'from-hysteria2', 'to-hysteria2']);
    expect(skipped).toEqual([
      { case: 'from-reality', server_kind: 'vless-reality-vision', reason: `v2ray 4.34.0 does not carry it itself: ${said}` },
      { case: 'to-reality', server_kind: 'vless-reality-vision', reason: `v2ray 4.34.0 does not carry it itself: ${said}` },
    ]);
  });
});
