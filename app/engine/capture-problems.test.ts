import { describe, expect, it } from 'vitest';
import { FakeClock } from '../testing/fake-clock';
import { followCaptureProblems } from './capture-problems';
import { ProblemBoard } from './problems';

const applied = { active: true, method: 'tproxy' as const, detail: 'nftables TPROXY', error: null };

describe('followCaptureProblems', () => {
  it('per-app entries the capture cannot match here are a warning naming them, gone once a capture matches the whole list', () => {
    const board = new ProblemBoard(new FakeClock(1000));
    followCaptureProblems({ ...applied, perAppUnmatched: [{ entry: '/usr/bin/steam', reason: 'this kernel has no cgroup v2' }] }, board);
    expect(board.list().map((p) => [p.severity, p.topic, p.detail])).toEqual([['warning', { kind: 'per-app-unmatched', entries: ['/usr/bin/steam'] }, '/usr/bin/steam: this kernel has no cgroup v2']]);
    // Capture going off (a core restart) says nothing new about the list.
    followCaptureProblems({ active: false, method: null, detail: null, error: null }, board);
    expect(board.list()).toHaveLength(1);
    followCaptureProblems({ ...applied, perAppUnmatched: [] }, board);
    expect(board.list()).toEqual([]);
  });

  it('a capture that should be in force and is not is an error', () => {
    const board = new ProblemBoard(new FakeClock(1000));
    followCaptureProblems({ active: false, method: null, detail: null, error: 'the capture helper stopped' }, board);
    expect(board.list().map((p) => [p.severity, p.topic.kind])).toEqual([['error', 'system-wide']]);
  });
});
