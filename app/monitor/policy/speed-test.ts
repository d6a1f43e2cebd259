/**
 * The bulk speed test's plan (pure): `step(state, event) → { state, commands }`.
 *
 * - A run starts only when asked, never while another runs, and only with servers to test (each
 *   once, in the order given).
 * - `parallel` downloads at once; each finished one hands its slot to the next waiting server.
 * - Time left is the pace so far (time since the start per finished server) times the servers
 *   left; unknown until the first server finished.
 * - Cancel stops every download at once: nothing waiting starts, every running download is
 *   aborted together, and a download that ends after the cancel is not recorded (it was cut
 *   short, so its figure would be wrong). The run is idle when the last aborted download ended.
 */
import type { ServerId } from '../../../shared/domain/server';
import { IDLE_SPEED_TEST, type SpeedTestProgress, type SpeedTestResult } from '../../../shared/domain/speed-test';

/** The response must start within this long (a proxy that never answers CONNECT is given up on). */
export const SPEED_TEST_HEADERS_MS = 10_000;
/** Nothing for this long after a byte: the download stopped. */
export const SPEED_TEST_STALL_MS = 10_000;
/** The slowest body speed a download is waited for: beyond its deadline the speed so far counts. */
export const SPEED_TEST_FLOOR_BPS = 100_000;

/** One download's whole deadline: the headers' wait plus the body at the floor speed. */
export function speedTestDeadlineMs(bytes: number): number {
  return SPEED_TEST_HEADERS_MS + Math.ceil((bytes * 1000) / SPEED_TEST_FLOOR_BPS);
}

export interface SpeedTestState {
  phase: 'idle' | 'running' | 'cancelling';
  waiting: ServerId[];
  inFlight: ServerId[];
  done: number;
  failed: number;
  total: number;
  parallel: number;
  bytes: number;
  startedAt: number | null;
  ended: SpeedTestProgress['ended'];
}

export type SpeedTestEvent =
  | { kind: 'start'; serverIds: readonly ServerId[]; bytes: number; parallel: number; now: number }
  | { kind: 'finished'; serverId: ServerId; result: SpeedTestResult; now: number }
  | { kind: 'cancel'; now: number };

export type SpeedTestCommand =
  | { kind: 'download'; serverId: ServerId; bytes: number }
  | { kind: 'abort-all' }
  | { kind: 'record'; serverId: ServerId; result: SpeedTestResult }
  | { kind: 'publish'; progress: SpeedTestProgress }
  | { kind: 'idle'; ended: 'finished' | 'cancelled' };

export interface SpeedTestStep {
  state: SpeedTestState;
  commands: SpeedTestCommand[];
  /** Why the event was refused (a start while running, nothing to test); null when it was taken. */
  refused: string | null;
}

export const initialSpeedTestState: SpeedTestState = {
  phase: 'idle',
  waiting: [],
  inFlight: [],
  done: 0,
  failed: 0,
  total: 0,
  parallel: IDLE_SPEED_TEST.parallel,
  bytes: IDLE_SPEED_TEST.bytesPerServer,
  startedAt: null,
  ended: null,
};

export function stepSpeedTest(state: SpeedTestState, event: SpeedTestEvent): SpeedTestStep {
  switch (event.kind) {
    case 'start':
      return start(state, event);
    case 'finished':
      return finished(state, event);
    case 'cancel':
      return cancel(state, event.now);
  }
}

function start(state: SpeedTestState, event: Extract<SpeedTestEvent, { kind: 'start' }>): SpeedTestStep {
  if (state.phase !== 'idle') return refuse(state, 'a speed test is already running');
  const ids = [...new Set(event.serverIds)];
  if (ids.length === 0) return refuse(state, 'there is no server to test');
  const parallel = Math.max(1, Math.floor(event.parallel));
  const next: SpeedTestState = {
    phase: 'running',
    waiting: ids.slice(parallel),
    inFlight: ids.slice(0, parallel),
    done: 0,
    failed: 0,
    total: ids.length,
    parallel,
    bytes: event.bytes,
    startedAt: event.now,
    ended: null,
  };
  const downloads = next.inFlight.map((serverId): SpeedTestCommand => ({ kind: 'download', serverId, bytes: event.bytes }));
  return taken(next, [...downloads, publish(next, event.now)]);
}

function finished(state: SpeedTestState, event: Extract<SpeedTestEvent, { kind: 'finished' }>): SpeedTestStep {
  if (!state.inFlight.includes(event.serverId)) return taken(state, []);
  const inFlight = state.inFlight.filter((id) => id !== event.serverId);
  if (state.phase === 'cancelling') {
    const next = { ...state, inFlight };
    if (inFlight.length > 0) return taken(next, []);
    const idle: SpeedTestState = { ...next, phase: 'idle', ended: 'cancelled' };
    return taken(idle, [publish(idle, event.now), { kind: 'idle', ended: 'cancelled' }]);
  }
  const [following, ...waiting] = state.waiting;
  const next: SpeedTestState = {
    ...state,
    waiting,
    inFlight: following === undefined ? inFlight : [...inFlight, following],
    done: state.done + 1,
    failed: state.failed + (event.result.bytesPerSecond === null ? 1 : 0),
  };
  const commands: SpeedTestCommand[] = [{ kind: 'record', serverId: event.serverId, result: event.result }];
  if (following !== undefined) commands.push({ kind: 'download', serverId: following, bytes: state.bytes });
  if (next.inFlight.length === 0) {
    const idle: SpeedTestState = { ...next, phase: 'idle', ended: 'finished' };
    return taken(idle, [...commands, publish(idle, event.now), { kind: 'idle', ended: 'finished' }]);
  }
  return taken(next, [...commands, publish(next, event.now)]);
}

function cancel(state: SpeedTestState, now: number): SpeedTestStep {
  if (state.phase !== 'running') return taken(state, []);
  const next: SpeedTestState = { ...state, phase: 'cancelling', waiting: [] };
  if (next.inFlight.length === 0) {
    const idle: SpeedTestState = { ...next, phase: 'idle', ended: 'cancelled' };
    return taken(idle, [publish(idle, now), { kind: 'idle', ended: 'cancelled' }]);
  }
  return taken(next, [{ kind: 'abort-all' }, publish(next, now)]);
}

/** What the window shows of a state at `now`. */
export function speedTestProgress(state: SpeedTestState, now: number): SpeedTestProgress {
  const left = state.total - state.done;
  const remainingMs =
    state.phase === 'running' && state.startedAt !== null && state.done > 0 ? Math.max(0, Math.round(((now - state.startedAt) / state.done) * left)) : null;
  return {
    running: state.phase !== 'idle',
    cancelling: state.phase === 'cancelling',
    done: state.done,
    failed: state.failed,
    total: state.total,
    parallel: state.parallel,
    bytesPerServer: state.bytes,
    startedAt: state.startedAt,
    remainingMs,
    ended: state.phase === 'idle' ? state.ended : null,
  };
}

const publish = (state: SpeedTestState, now: number): SpeedTestCommand => ({ kind: 'publish', progress: speedTestProgress(state, now) });
const taken = (state: SpeedTestState, commands: SpeedTestCommand[]): SpeedTestStep => ({ state, commands, refused: null });
const refuse = (state: SpeedTestState, refused: string): SpeedTestStep => ({ state, commands: [], refused });

/** The speed of a finished download, or why it has none (pure: the runtime passes the course). */
export function speedTestResultOf(
  course: { kind: 'complete' | 'stalled' | 'deadline'; status: number; bytes: number; bodyMs: number } | { kind: 'silent'; waitedMs: number } | { kind: 'error'; message: string },
  at: number,
): SpeedTestResult {
  const failed = (error: string, bytes = 0): SpeedTestResult => ({ at, bytes, bytesPerSecond: null, error, fromCache: false });
  if (course.kind === 'error') return failed(course.message);
  if (course.kind === 'silent') return failed(`the download did not start within ${Math.round(course.waitedMs / 1000)} s`);
  if (course.status !== 200) return failed(`HTTP ${course.status} instead of 200`, course.bytes);
  if (course.bytes === 0) return failed('the download brought no bytes');
  if (course.kind === 'stalled') return failed(`${course.bytes} bytes, then nothing came`, course.bytes);
  // A download still flowing at the deadline measured its speed all the same.
  return { at, bytes: course.bytes, bytesPerSecond: Math.round((course.bytes * 1000) / Math.max(1, course.bodyMs)), error: null, fromCache: false };
}
