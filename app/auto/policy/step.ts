/**
 * Auto's decision engine: `step(state, event, now, world) → { state, commands }`.
 *
 * The rules live in the files beside this one (check-start, check-end, switching, limits,
 * traffic, score, queue); this file routes each event to them and, after every event, starts
 * whatever check has become due and asks the runtime to wake it when the next one may.
 * `world` is the read-only view of subscriptions and measurements owned by other services.
 *
 * Choices the spec leaves open, as a user would expect them:
 * - A check waits for each probe as long as the monitor lets one URL test take
 *   (`url_test_timeout`, 5 s): a check probes "the same way as an HTTP (URL) ping", and its
 *   results join the monitor's history as URL measurements, so they must mean the same thing.
 *   The probes of a check run in parallel; the check ends when the last one answers or times out,
 *   except that a check started by a sign of failure takes the current server as silent once
 *   another answered and it has not within three of its usual delays (check-end.ts).
 * - A stall is prepared for: at half the threshold the servers its check would probe are probed
 *   (a `prepare` line); at the threshold the check starts as the spec fixes and decides from the
 *   answers in hand; a stall that heals first changes nothing and records nothing (check-start.ts).
 * - "Traffic since the last scheduled check" is any stats interval with bytes either way.
 * - Turning Auto on picks the best score at once (no probe first); when the VPN is disconnected
 *   it only selects the server the next connect uses. Turning it on for another subscription
 *   turns it off for the previous one.
 * - Connecting to a server by hand turns Auto off: the user took over.
 * - The tunnel connecting to a server outside Auto's subscription (a stale selection) is corrected
 *   to Auto's best at once (`auto-on`), unless Auto itself had moved to a neighbour (a return
 *   candidate is remembered): then the own subscription is retried as if Auto had just moved.
 * - When the current server vanishes in an update, Auto moves to the best remaining server of its
 *   subscription without probing (`server-removed`), held by no limit.
 * - A network change (the OS's view) lifts a network-loss pause, starts the loss count over and
 *   forgets the silence seen on the old network; a check running across it is abandoned.
 * - Data coming back through the current server during a network-loss pause ends it too: the
 *   network is evidently back, so a due check may run at once and the UI stops saying "lost".
 * - The current server is watched for freezing (watch.ts): its transfer test when the connection
 *   starts, on suspicion and every 60 s while in use; a result that freezes starts a freeze check
 *   (check-start.ts), whose candidates need a fresh transfer that passes (check-end.ts).
 * - Marks are kept per subscription by server id. "Done" changes only marks of servers present;
 *   marks of servers absent after an update are kept for when they come back.
 */
import type { TrafficSample } from '../../../shared/domain/connection';
import { AUTO_RULES } from './constants';
import { concludeEarly, onProbeResult, onTransferResult } from './check-end';
import { abandonCheck, dissolvePrepared } from './check-finish';
import { maybeStartCheck, nextWake, requestedCheck, watching } from './check-start';
import type { AutoConfig } from './constants';
import { forgetEpisode, homeOf, log, markedElsewhereIn, mayTake, queueOf, snapshotChanged, type StepContext } from './state';
import { connectManually, switchTo } from './switching';
import { QUIET_TRACKER, observeSample, restartSilence } from './traffic';
import type { AutoEvent, AutoState, StepResult } from './types';
import { silentTransfer, transferMark } from './transfer';
import { watchDue, watchEnded, watchOf, watchResult, watchSample } from './watch';
import { type AutoWorld, findSubscription, subscriptionOf, type TransferSeen } from './world';

export function step(state: AutoState, event: AutoEvent, now: number, world: AutoWorld): StepResult {
  const ctx: StepContext = { now, world, out: [] };
  let next = apply(state, event, ctx);
  next = maybeStartCheck(next, ctx);
  next = maybeWatch(next, ctx);
  const wakeAt = nextWake(next, now, ctx);
  if (wakeAt !== next.wakeAt) {
    ctx.out.push({ kind: 'wake', at: wakeAt });
    next = { ...next, wakeAt };
  }
  if (snapshotChanged(state, next) || ctx.out.some((c) => c.kind === 'log')) ctx.out.push({ kind: 'emit' });
  return { state: next, commands: ctx.out };
}

function apply(state: AutoState, event: AutoEvent, ctx: StepContext): AutoState {
  switch (event.type) {
    case 'traffic':
      return onTraffic(state, ctx, event.sample);
    case 'dial-failure':
      // A destination that failed through a working server is no sign of that server failing.
      if (event.of === 'destination') return state;
      return event.serverId === state.current ? maybeStartCheck(state, ctx, requestedCheck(state, 'dial-failure', event.kind)) : state;
    case 'check-now':
      return maybeStartCheck(state, ctx, requestedCheck(state, 'user'));
    case 'probe-result':
      return onProbeResult(state, ctx, event);
    case 'transfer-result':
      return onTransferResult(state, ctx, event);
    case 'transfer-seen':
      return onTransferSeen(state, event.serverId, event.result);
    case 'watch-ended':
      return event.serverId === state.watch.serverId ? { ...state, watch: watchEnded(state.watch, ctx.now) } : state;
    case 'wake':
      return concludeEarly({ ...state, wakeAt: null }, ctx);
    case 'network':
      return onNetwork(state, ctx, event.state);
    case 'tunnel-connected':
      return onTunnelConnected(state, ctx, event.serverId);
    case 'tunnel-disconnected':
      return { ...abandonCheck(state, ctx), connected: false, traffic: QUIET_TRACKER, quiet: null };
    case 'set-auto':
      return onSetAuto(state, ctx, event.subscriptionId);
    case 'set-excluded':
      return onSetExcluded(state, ctx, event.subscriptionId, event.ids);
    case 'marks-changed':
      return onMarksChanged(state, ctx);
    case 'manual-connect':
      return connectManually(turnOff(state, ctx), ctx, event.serverId, 'manual');
    case 'subscriptions-updated':
      return onSubscriptionsUpdated(state, ctx);
    case 'configure':
      return onConfigure(state, ctx, event.config);
  }
}

/**
 * New settings hold from now on: the next traffic sample is judged by the new stall threshold, the
 * next check's probes wait the new timeout (a check in flight keeps the timeout it started with).
 */
function onConfigure(state: AutoState, ctx: StepContext, config: AutoConfig): AutoState {
  if (config.stallThresholdMs === state.config.stallThresholdMs && config.probeTimeoutMs === state.config.probeTimeoutMs) return state;
  log(ctx, { type: 'settings', at: ctx.now, stallThresholdMs: config.stallThresholdMs, probeTimeoutMs: config.probeTimeoutMs });
  return { ...state, config };
}

function onTraffic(state: AutoState, ctx: StepContext, sample: TrafficSample): AutoState {
  if (!state.connected) return state;
  let next = { ...state, traffic: observeSample(state.traffic, sample, state.config.stallThresholdMs), watch: watchSample(state.watch, sample) };
  // The stall a check was being prepared for is over (data came back, or the sending stopped).
  if (next.check?.phase === 'prepared' && next.traffic.stallSince === null) next = dissolvePrepared(next, ctx);
  // Data came back through the current server: the network is back, the loss pause is over.
  if (sample.downBytes > 0 && next.networkLoss) return { ...next, networkLoss: null, announcedHold: null };
  return next;
}

/**
 * A transfer test of `serverId` ended. About the current server it is news for the watch (the
 * periodic test counts from it) and, when it froze or was throttled, a freeze check falls due
 * (check-start.ts); one that passes takes back a freeze no check has answered yet.
 */
function onTransferSeen(state: AutoState, serverId: string, result: TransferSeen): AutoState {
  const { watch, news } = watchResult(state.watch, serverId, result.at);
  if (!news || !state.connected || serverId !== state.current) return { ...state, watch };
  // DPI lets a connection's first kilobytes through before it freezes; a response that never
  // started (0 bytes) is a silent server, which the stall and silence triggers answer, and is no
  // "traffic freezes after 0 KB" to tell the user.
  const mark = silentTransfer(result) ? null : transferMark(result.verdict);
  if (mark) return { ...state, watch, frozen: { serverId, verdict: mark, bytes: result.bytes, at: result.at } };
  return { ...state, watch, frozen: result.verdict === 'ok' ? null : state.frozen };
}

/** The watch's transfer test of the current server, when one is due (never while a check runs: it tests what it needs). */
function maybeWatch(state: AutoState, ctx: StepContext): AutoState {
  if (!watching(state) || state.check || state.watch.serverId !== state.current) return state;
  const reason = watchDue(state.watch, state.traffic, ctx.now);
  if (!reason) return state;
  ctx.out.push({ kind: 'transfer-test', serverId: state.current!, reason });
  return { ...state, watch: { ...state.watch, runningSince: ctx.now } };
}

function onNetwork(state: AutoState, ctx: StepContext, network: 'up' | 'none'): AutoState {
  const next = abandonCheck(state, ctx);
  if (network === 'none') return { ...next, network };
  return { ...next, network, networkLoss: null, announcedHold: null, traffic: restartSilence(next.traffic) };
}

function onTunnelConnected(state: AutoState, ctx: StepContext, serverId: string): AutoState {
  if (state.connected && state.current === serverId) return state;
  let next: AutoState = {
    ...abandonCheck(state, ctx),
    connected: true,
    current: serverId,
    traffic: restartSilence(state.traffic),
    watch: watchOf(serverId, ctx.now),
    frozen: null,
  };
  if (!state.connected) next = { ...next, lastScheduledAt: ctx.now, quiet: null };
  const own = next.subscriptionId;
  if (own === null || subscriptionOf(ctx.world, serverId)?.id === own || next.away) return next;
  if (next.returnCandidate !== null) {
    return { ...next, away: { failures: 0, nextRetryAt: ctx.now + AUTO_RULES.ownRetryIntervalMs, lastRetryAt: ctx.now } };
  }
  const best = queueOf(next, ctx, own)[0];
  return best === undefined ? next : switchTo(next, ctx, best, 'auto-on');
}

function turnOff(state: AutoState, ctx: StepContext): AutoState {
  return { ...forgetEpisode(abandonCheck(state, ctx)), subscriptionId: null };
}

function onSetAuto(state: AutoState, ctx: StepContext, subscriptionId: string | null): AutoState {
  if (subscriptionId === null) return turnOff(state, ctx);
  if (!findSubscription(ctx.world, subscriptionId)) {
    ctx.out.push({ kind: 'refuse', code: 'no-such-subscription', reason: `There is no subscription "${subscriptionId}".` });
    return state;
  }
  const next: AutoState = { ...forgetEpisode(abandonCheck(state, ctx)), subscriptionId, lastScheduledAt: ctx.now };
  const best = queueOf(next, ctx, subscriptionId)[0];
  if (best === undefined || best === next.current) return next;
  return switchTo(next, ctx, best, 'auto-on');
}

function onSetExcluded(state: AutoState, ctx: StepContext, subscriptionId: string, ids: readonly string[]): AutoState {
  const subscription = findSubscription(ctx.world, subscriptionId);
  if (!subscription) {
    ctx.out.push({ kind: 'refuse', code: 'no-such-subscription', reason: `There is no subscription "${subscriptionId}".` });
    return state;
  }
  const present = new Set(subscription.serverIds);
  const kept = (state.excluded[subscriptionId] ?? []).filter((id) => !present.has(id));
  const marks = [...new Set([...ids.filter((id) => present.has(id)), ...kept])];
  const elsewhere = new Set(markedElsewhereIn(ctx.world, subscriptionId));
  const marked = new Set([...marks, ...elsewhere]);
  // Marks made elsewhere that already cover every server are no refusal of these (a group whose
  // members are all excluded from Auto chooses among them); only these marks may not take the last.
  const allElsewhere = subscription.serverIds.every((id) => elsewhere.has(id));
  if (subscription.serverIds.length > 0 && subscription.serverIds.every((id) => marked.has(id)) && !allElsewhere) {
    ctx.out.push({ kind: 'refuse', code: 'last-unmarked-server', reason: 'The last unmarked server cannot be marked: Auto needs one server it may take.' });
    return state;
  }
  const excluded = { ...state.excluded };
  if (marks.length > 0) excluded[subscriptionId] = marks;
  else delete excluded[subscriptionId];
  return leaveMarked({ ...state, excluded }, ctx, subscriptionId);
}

/**
 * The marks made elsewhere changed (a group's reducer: the user marked or unmarked servers of
 * their own subscriptions): a newly marked current server is left as after "Done".
 */
function onMarksChanged(state: AutoState, ctx: StepContext): AutoState {
  const own = state.subscriptionId;
  return own === null ? state : leaveMarked(state, ctx, own);
}

/** After marks changed: a marked return candidate is forgotten, a marked current server of the subscription left for its best. */
function leaveMarked(state: AutoState, ctx: StepContext, subscriptionId: string): AutoState {
  let next = state;
  const candidate = next.returnCandidate;
  if (candidate !== null && subscriptionOf(ctx.world, candidate) && !mayTake(next, ctx, candidate)) next = { ...next, returnCandidate: null };
  const current = next.current;
  if (next.subscriptionId === null || current === null || mayTake(next, ctx, current) || homeOf(next, ctx) !== subscriptionId) return next;
  next = abandonCheck(next, ctx);
  const best = queueOf(next, ctx, subscriptionId)[0];
  return best === undefined || best === current ? next : switchTo(next, ctx, best, 'excluded');
}

function onSubscriptionsUpdated(state: AutoState, ctx: StepContext): AutoState {
  let next = state;
  if (next.subscriptionId !== null && !findSubscription(ctx.world, next.subscriptionId)) next = turnOff(next, ctx);
  if (next.returnCandidate !== null && !subscriptionOf(ctx.world, next.returnCandidate)) next = { ...next, returnCandidate: null };
  const current = next.current;
  if (next.subscriptionId === null || current === null || subscriptionOf(ctx.world, current)) return next;
  next = abandonCheck(next, ctx);
  const best = queueOf(next, ctx, next.subscriptionId)[0];
  return best === undefined ? next : switchTo(next, ctx, best, 'server-removed');
}
