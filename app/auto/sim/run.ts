/**
 * Runs a scenario: the app's own Auto runtime and policy, with the app's default settings, in the
 * simulated world on a VirtualClock. Returns the lines `npm run sim` prints: every decision (with
 * `at` and `until` in ms since the start), a `refused` line for a user action Auto refused, and the `end` line.
 *
 * Transfer tests (the monitor's download through a server, which Auto asks for to watch the
 * current server and in freeze checks) find what the scenario's `transfers` say, and print as
 * `transfer-test` lines.
 *
 * Traffic is reported in the tunnel's 500 ms stats intervals; a world change at the end of an
 * interval applies after that interval's sample (so a server that goes down at 2 m carried the
 * traffic of the interval ending at 2 m). The run covers [0, until).
 */
import type { AutoDecision } from '../../../shared/domain/auto';
import type { ServerId, SubscriptionId } from '../../../shared/domain/server';
import { DEFAULT_SETTINGS, type Settings } from '../../../shared/settings';
import { Logger } from '../../log/logger';
import { VirtualClock } from '../../virtual-clock';
import type { AutoConfig } from '../policy/constants';
import { autoConfigFrom, AutoRuntime } from '../runtime';
import { GroupPicker } from '../groups';
import type { SimAction, Scenario, WorldEntry } from './scenario';
import { SAMPLE_INTERVAL_MS, SimWorld } from './world';

export type SimLine = { type: string; at: number } & Record<string, unknown>;

export interface RunOptions {
  settings?: Settings;
  /** Epoch ms of the scenario's 0 s. */
  start?: number;
  /** Receives the runtime's `AUTO` log lines (the CLI's --log). */
  logger?: Logger;
}

/** Mobile stalls count after 2 s (spec/auto.md); the desktop app's setting otherwise. */
const MOBILE_STALL_MS = 2000;

export async function runScenario(scenario: Scenario, options: RunOptions = {}): Promise<SimLine[]> {
  const settings = options.settings ?? DEFAULT_SETTINGS;
  const start = options.start ?? Date.UTC(2026, 0, 1);
  const clock = new VirtualClock(start);
  const world = new SimWorld(
    clock,
    scenario.subscriptions.map((s) => ({ id: s.id, serverIds: s.servers })),
    scenario.reconnect,
    settings.monitor.urlTestTimeoutMs,
  );
  seedHistory(world, scenario, start);

  const lines: SimLine[] = [];
  const config = autoConfigFrom(settings);
  let current: AutoConfig = scenario.platform === 'mobile' ? { ...config, stallThresholdMs: MOBILE_STALL_MS } : config;
  const runtime = new AutoRuntime({
    clock,
    logger: options.logger ?? new Logger(),
    config: current,
    probe: world,
    measurements: world,
    tunnel: world,
    subscriptions: world,
    persisted: { subscriptionId: scenario.auto ?? null, excluded: marksBySubscription(scenario), returnCandidate: null },
  });
  runtime.onDecision((decision) => lines.push(lineOf(decision, start)));
  const groups = groupPickers(scenario, world, clock, current, options.logger ?? new Logger());
  for (const g of groups) {
    g.picker.onDecision((decision) => {
      // A move off the group's members is the group going down: its traffic is blocked, not moved.
      const down = decision.type === 'switch' && !g.members().includes(decision.to) ? { down: true } : {};
      lines.push({ ...lineOf(decision, start), group: g.picker.name, ...down });
    });
  }
  // An OS network change reaches every Auto: the main connection's and each group's.
  const everyAuto = { networkChanged: (state: 'none' | 'up') => [runtime, ...groups.map((g) => g.picker)].forEach((a) => a.networkChanged(state)) };
  // A settings action, as the engine passes a saved Settings change: an event to Auto.
  const configure = (patch: SettingsPatch) => {
    current = {
      stallThresholdMs: patch.stallThresholdMs ?? current.stallThresholdMs,
      probeTimeoutMs: patch.urlTestTimeoutMs ?? current.probeTimeoutMs,
    };
    runtime.reconfigure(current);
    for (const g of groups) g.picker.reconfigure(current);
  };
  world.onEventTest = (test) => lines.push({ type: 'event-test', at: test.at - start, id: test.id, delay: test.delay });
  world.onTransferTest = (test) => lines.push({ type: 'transfer-test', at: test.at - start, id: test.id, verdict: test.verdict, bytes: test.bytes });

  const entries = [...scenario.world];
  let next = 0;
  // The world as it is at 0 s, before the VPN connects.
  for (const entry of entries) if (entry.at === 0) applyWorld(world, everyAuto, entry, true);

  if (scenario.current !== undefined) {
    world.connect(scenario.current);
  } else {
    runtime.setAuto(scenario.auto!);
    const picked = world.current();
    if (picked !== null) world.connect(picked);
  }
  runtime.start();
  for (const g of groups) g.picker.connectedNow();

  for (; next < entries.length && entries[next]!.at === 0; next++) act(world, runtime, configure, entries[next]!, lines, 0);

  // Samples and world changes are clock timers too, so the whole run is one `advance`. A change
  // on the 500 ms grid is applied by that moment's sample tick, after the sample; one off the grid
  // has its own timer.
  const until = start + scenario.until;
  const applyDue = () => {
    const t = clock.now() - start;
    for (; next < entries.length && entries[next]!.at <= t; next++) {
      applyWorld(world, everyAuto, entries[next]!, false);
      act(world, runtime, configure, entries[next]!, lines, entries[next]!.at);
    }
  };
  const tick = () => {
    const sample = world.sample();
    runtime.traffic(sample);
    for (const g of groups) g.picker.traffic(sample, world.groupSample(g.picker.pick()));
    if (world.dialFailing()) runtime.dialFailure(world.current()!);
    applyDue();
    if (clock.now() + SAMPLE_INTERVAL_MS < until) clock.after(SAMPLE_INTERVAL_MS, tick);
  };
  for (const entry of entries.slice(next)) {
    if (entry.at % SAMPLE_INTERVAL_MS !== 0 && entry.at < scenario.until) clock.after(entry.at, applyDue);
  }
  clock.after(SAMPLE_INTERVAL_MS, tick);
  // The run covers [0, until): nothing that falls due at `until` itself happens.
  await clock.advance(scenario.until - 1);
  runtime.stop();
  for (const g of groups) g.picker.stop();
  const picks = groups.length > 0 ? { groups: Object.fromEntries(groups.map((g) => [g.picker.name, g.picker.snapshot().state === 'down' ? 'down' : g.picker.pick()])) } : {};
  lines.push({ type: 'end', at: scenario.until, current: world.current(), ...picks, history: world.history() });
  // In time order: a check's probe results are logged when it ends, and those of a check
  // prepared during a stall came before its `check` line (the sort keeps ties in emission order).
  return lines.map((line, index) => ({ line, index })).sort((a, b) => a.line.at - b.line.at || a.index - b.index).map(({ line }) => line);
}

/** A picker per scenario group, on the same world (its probes, measurements and servers) as the main connection's Auto. */
function groupPickers(scenario: Scenario, world: SimWorld, clock: VirtualClock, config: AutoConfig, logger: Logger): { picker: GroupPicker; members: () => string[] }[] {
  return (scenario.groups ?? []).map((group) => {
    const members = () => group.members.filter((id) => world.list().some((s) => s.serverIds.includes(id)));
    const picker: GroupPicker = new GroupPicker({
      name: group.name,
      clock,
      logger,
      config,
      probe: world,
      measurements: world,
      members,
      subscriptions: () => world.list(),
      apply: async () => undefined,
      connected: () => world.connected(),
    });
    return { picker, members };
  });
}

/** A decision as a line: its times (`at`, and `until` where there is one) in ms since the start. */
function lineOf(decision: AutoDecision, start: number): SimLine {
  const { type, at, ...rest } = decision;
  const line: SimLine = { type, at: at - start, ...rest };
  if (typeof line.until === 'number') line.until -= start;
  return line;
}

/** The scenario's history: URL measurements spread evenly over the hour before the start. */
function seedHistory(world: SimWorld, scenario: Scenario, start: number): void {
  for (const [id, delays] of Object.entries(scenario.history ?? {})) {
    const spacing = Math.floor(3_600_000 / (delays.length + 1));
    delays.forEach((delayMs, i) => world.record(id, { at: start - (delays.length - i) * spacing, method: 'url', delayMs }));
  }
}

function marksBySubscription(scenario: Scenario): Record<SubscriptionId, ServerId[]> {
  const marks: Record<SubscriptionId, ServerId[]> = {};
  for (const id of scenario.excluded ?? []) {
    const sub = scenario.subscriptions.find((s) => s.servers.includes(id))!;
    (marks[sub.id] ??= []).push(id);
  }
  return marks;
}

/** Network, traffic and server changes. Only a change between "none" and anything else is an OS network change. */
function applyWorld(world: SimWorld, runtime: Pick<AutoRuntime, 'networkChanged'>, entry: WorldEntry, initial: boolean): void {
  for (const [id, state] of Object.entries(entry.servers ?? {})) world.servers.set(id, state);
  for (const [id, transfer] of Object.entries(entry.transfers ?? {})) world.transfers.set(id, transfer);
  if (entry.traffic) world.traffic = entry.traffic;
  if (entry.network && entry.network !== world.network) {
    const osChange = (entry.network === 'none') !== (world.network === 'none');
    world.network = entry.network;
    if (osChange || (initial && entry.network === 'none')) runtime.networkChanged(entry.network === 'none' ? 'none' : 'up');
  }
}

type SettingsPatch = Extract<SimAction, { settings: unknown }>['settings'];

function act(world: SimWorld, runtime: AutoRuntime, configure: (patch: SettingsPatch) => void, entry: WorldEntry, lines: SimLine[], at: number): void {
  const action = entry.action;
  if (!action) return;
  if ('settings' in action) {
    configure(action.settings);
    return;
  }
  const refused = perform(world, runtime, action);
  if (refused) lines.push({ type: 'refused', at, action: Object.keys(action)[0]!, reason: refused });
}

function perform(world: SimWorld, runtime: AutoRuntime, action: Exclude<SimAction, { settings: unknown }>): string | null {
  if ('exclude' in action || 'include' in action) {
    const ids = 'exclude' in action ? action.exclude : action.include;
    for (const sub of world.list()) {
      const touched = ids.filter((id) => sub.serverIds.includes(id));
      if (touched.length === 0) continue;
      const marks = runtime.snapshot().excluded[sub.id] ?? [];
      const next = 'exclude' in action ? [...marks, ...touched] : marks.filter((id) => !touched.includes(id));
      const outcome = runtime.setExcluded(sub.id, next);
      if (!outcome.ok) return outcome.error;
    }
    return null;
  }
  if ('autoOn' in action) {
    const outcome = runtime.setAuto(action.autoOn);
    return outcome.ok ? null : outcome.error;
  }
  if ('autoOff' in action) {
    runtime.setAuto(null);
    return null;
  }
  if ('subscriptionUpdate' in action) {
    for (const [id, servers] of Object.entries(action.subscriptionUpdate)) {
      for (const server of servers) if (!world.servers.has(server)) world.servers.set(server, 'down');
      world.updateSubscription(id, servers);
    }
    runtime.subscriptionsUpdated();
    return null;
  }
  if ('connect' in action) {
    runtime.manualConnect(action.connect);
    return null;
  }
  if ('destinationFailure' in action) {
    const current = world.current();
    if (current) runtime.dialFailure(current, 'handshake', 'destination');
    return null;
  }
  runtime.checkNow();
  return null;
}
