import { describe, expect, it } from 'vitest';
import type { SpeedTestResult } from '../../../shared/domain/speed-test';
import { initialSpeedTestState, type SpeedTestEvent, speedTestProgress, speedTestResultOf, type SpeedTestState, stepSpeedTest } from './speed-test';

const MB = 1_000_000;
const measured = (bytesPerSecond: number, at = 0): SpeedTestResult => ({ at, bytes: MB, bytesPerSecond, error: null, fromCache: false });
const failed = (at = 0): SpeedTestResult => ({ at, bytes: 0, bytesPerSecond: null, error: 'refused', fromCache: false });

/** Runs events from the initial state; the last step's commands (by kind and server) and the state. */
function run(events: SpeedTestEvent[]) {
  let state: SpeedTestState = initialSpeedTestState;
  let last = stepSpeedTest(state, events[0] as SpeedTestEvent);
  state = last.state;
  for (const event of events.slice(1)) {
    last = stepSpeedTest(state, event);
    state = last.state;
  }
  const commands = last.commands.map((c) => (c.kind === 'download' || c.kind === 'record' ? `${c.kind} ${c.serverId}` : c.kind === 'idle' ? `idle ${c.ended}` : c.kind));
  return { state, commands, refused: last.refused, progress: speedTestProgress(state, (events.at(-1) as SpeedTestEvent).now) };
}

const start = (ids: string[], parallel = 2, now = 0): SpeedTestEvent => ({ kind: 'start', serverIds: ids, bytes: MB, parallel, now });
const done = (id: string, now: number, result = measured(1e6, now)): SpeedTestEvent => ({ kind: 'finished', serverId: id, result, now });
const cancel = (now: number): SpeedTestEvent => ({ kind: 'cancel', now });

describe('the speed test plan', () => {
  const rules: { rule: string; events: SpeedTestEvent[]; commands: string[]; refused?: string; progress?: Partial<ReturnType<typeof speedTestProgress>> }[] = [
    { rule: 'a start downloads the first K servers and says so', events: [start(['a', 'b', 'c'])], commands: ['download a', 'download b', 'publish'], progress: { running: true, done: 0, total: 3, remainingMs: null } },
    { rule: 'each server is tested once however often it is named', events: [start(['a', 'a', 'b'], 4)], commands: ['download a', 'download b', 'publish'], progress: { total: 2 } },
    { rule: 'one at a time when asked for fewer than one', events: [start(['a', 'b'], 0)], commands: ['download a', 'publish'], progress: { parallel: 1 } },
    { rule: 'nothing to test is refused', events: [start([])], commands: [], refused: 'there is no server to test', progress: { running: false } },
    { rule: 'a start while a run is under way is refused', events: [start(['a']), start(['b'])], commands: [], refused: 'a speed test is already running', progress: { total: 1 } },
    { rule: 'a finished download is recorded and hands its slot on', events: [start(['a', 'b', 'c']), done('a', 4000)], commands: ['record a', 'download c', 'publish'], progress: { done: 1 } },
    { rule: 'time left is the pace so far times the servers left', events: [start(['a', 'b', 'c', 'd']), done('a', 4000), done('b', 6000)], commands: ['record b', 'download d', 'publish'], progress: { done: 2, remainingMs: 6000 } },
    { rule: 'a failure counts as done and as failed', events: [start(['a', 'b']), done('a', 1000, failed(1000))], commands: ['record a', 'publish'], progress: { done: 1, failed: 1 } },
    { rule: 'the last download ends the run', events: [start(['a']), done('a', 1000)], commands: ['record a', 'publish', 'idle finished'], progress: { running: false, done: 1, ended: 'finished' } },
    { rule: 'a result of a server not being tested is ignored', events: [start(['a', 'b', 'c']), done('c', 1000)], commands: [], progress: { done: 0 } },
    { rule: 'cancel aborts every download at once and starts no other', events: [start(['a', 'b', 'c']), cancel(500)], commands: ['abort-all', 'publish'], progress: { running: true, cancelling: true, remainingMs: null } },
    { rule: 'a download ending after the cancel is not recorded', events: [start(['a', 'b', 'c']), cancel(500), done('a', 600)], commands: [], progress: { cancelling: true, done: 0 } },
    { rule: 'the run is idle when the last aborted download ended', events: [start(['a', 'b', 'c']), cancel(500), done('a', 600), done('b', 650)], commands: ['publish', 'idle cancelled'], progress: { running: false, ended: 'cancelled', done: 0 } },
    { rule: 'cancel when nothing runs does nothing', events: [cancel(0)], commands: [], progress: { running: false, ended: null } },
    { rule: 'a new run may start after a cancelled one', events: [start(['a']), cancel(10), done('a', 20), start(['b'], 2, 30)], commands: ['download b', 'publish'], progress: { running: true, total: 1, done: 0, ended: null } },
  ];
  it.each(rules)('$rule', ({ events, commands, refused, progress }) => {
    const out = run(events);
    expect(out.commands).toEqual(commands);
    expect(out.refused).toBe(refused ?? null);
    if (progress) expect(out.progress).toMatchObject(progress);
  });
});

describe('a download’s speed', () => {
  const cases: { course: Parameters<typeof speedTestResultOf>[0]; bytesPerSecond: number | null; error?: RegExp }[] = [
    { course: { kind: 'complete', status: 200, bytes: 2 * MB, bodyMs: 1000 }, bytesPerSecond: 2 * MB },
    { course: { kind: 'deadline', status: 200, bytes: MB, bodyMs: 4000 }, bytesPerSecond: 250_000 },
    { course: { kind: 'stalled', status: 200, bytes: 1000, bodyMs: 10 }, bytesPerSecond: null, error: /1000 bytes, then nothing came/ },
    { course: { kind: 'complete', status: 404, bytes: 10, bodyMs: 1 }, bytesPerSecond: null, error: /HTTP 404/ },
    { course: { kind: 'complete', status: 200, bytes: 0, bodyMs: 0 }, bytesPerSecond: null, error: /no bytes/ },
    { course: { kind: 'silent', waitedMs: 10_000 }, bytesPerSecond: null, error: /did not start within 10 s/ },
    { course: { kind: 'error', message: 'connection refused' }, bytesPerSecond: null, error: /connection refused/ },
  ];
  it.each(cases)('$course.kind $course.status → $bytesPerSecond', ({ course, bytesPerSecond, error }) => {
    const result = speedTestResultOf(course, 5);
    expect(result.bytesPerSecond).toBe(bytesPerSecond);
    expect(result.at).toBe(5);
    if (error) expect(result.error).toMatch(error);
    else expect(result.error).toBeNull();
  });
});
