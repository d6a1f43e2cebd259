/**
 * Test-only: an in-memory VpnClient that behaves like a host (validates every request with the
 * contract's parseRequest, keeps a snapshot, answers and pushes events) and records the calls.
 * Used by component tests and by the preview page; never by the product.
 */
import type { AutoSnapshot } from '../../../shared/domain/auto';
import type { ServerStatus } from '../../../shared/domain/status';
import { EngineRefusal } from '../../../shared/domain/refusal';
import { IDLE_SPEED_TEST } from '../../../shared/domain/speed-test';
import {
  type AppSnapshot,
  type EventName,
  type EventPayloads,
  INVOKE_CHANNELS,
  type InvokeChannel,
  type InvokeResponses,
  type ListStatus,
  parseRequest,
  type VpnClient,
} from '../../../shared/ipc/contract';
import { refusalFromWire } from '../../../shared/ipc/answer';
import { settingsSchema } from '../../../shared/settings';
import { measurementsFor, sampleCoreList, server as makeServer, status as makeStatus, subscription as makeSubscription } from './sample-world';

export interface RecordedCall {
  channel: InvokeChannel;
  payload: unknown;
}

export type FakeClient = VpnClient & {
  calls: RecordedCall[];
  snapshot: AppSnapshot;
  emit<E extends EventName>(event: E, payload: EventPayloads[E]): void;
  callsTo(channel: InvokeChannel): unknown[];
  /** Makes the next call of `channel` fail with `message`, and the refusal's code and validation problem if given (as a host refusal would). */
  failNext(channel: InvokeChannel, message: string, code?: string, validation?: unknown): void;
};

function listed(status: ServerStatus): ListStatus {
  const { statistics: _statistics, recent: _recent, ...rest } = status;
  return rest;
}

export function createFakeClient(initial: AppSnapshot, now: () => number = Date.now): FakeClient {
  const listeners = new Map<EventName, Set<(payload: never) => void>>();
  const failures = new Map<InvokeChannel, { message: string; code?: string; validation?: unknown }>();
  // As a host does: the snapshot and the stream carry list statuses, the whole status is asked for.
  const whole = new Map<string, ServerStatus>(Object.values(initial.statuses).map((status) => [status.serverId, { ...makeStatus(status.serverId), ...structuredClone(status) }]));
  let snapshot: AppSnapshot = { ...structuredClone(initial), statuses: Object.fromEntries([...whole.values()].map((status) => [status.serverId, listed(status)])) };

  const emit = <E extends EventName>(event: E, payload: EventPayloads[E]) => {
    for (const listener of [...(listeners.get(event) ?? [])]) (listener as (p: EventPayloads[E]) => void)(payload);
  };
  const setAuto = (auto: AutoSnapshot) => {
    snapshot = { ...snapshot, auto };
    emit('auto', auto);
    return auto;
  };
  const patchStatus = (id: string, patch: Partial<ServerStatus>): ServerStatus => {
    const next = { ...(whole.get(id) ?? makeStatus(id)), ...patch };
    whole.set(id, next);
    snapshot = { ...snapshot, statuses: { ...snapshot.statuses, [id]: listed(next) } };
    emit('statuses', [listed(next)]);
    return next;
  };
  const subscriptionOf = (serverId: string) => snapshot.subscriptions.find((s) => s.servers.some((x) => x.id === serverId));

  const handlers: { [C in InvokeChannel]: (request: never) => InvokeResponses[C] } = {
    getSnapshot: () => snapshot,
    addSubscription: (request: { url?: string; text?: string; name?: string }) => {
      const id = `sub${snapshot.subscriptions.length + 1}`;
      const lines = (request.text ?? '').split('\n').filter((line) => line.trim());
      const servers = lines.map((line, i) => makeServer(`${id}-${i}`, id, line.trim().slice(0, 40)));
      const added = makeSubscription(id, request.name ?? id, servers, request.url ? { url: request.url } : { url: undefined });
      snapshot = { ...snapshot, subscriptions: [...snapshot.subscriptions, added] };
      emit('subscriptions', snapshot.subscriptions);
      return added;
    },
    updateSubscription: (request: { id: string }) => {
      const found = snapshot.subscriptions.find((s) => s.id === request.id);
      if (!found) throw new EngineRefusal('no-such-subscription', `no subscription with id "${request.id}"`);
      const updated = { ...found, updatedAt: now(), lastError: null, lastErrorKind: null };
      snapshot = { ...snapshot, subscriptions: snapshot.subscriptions.map((s) => (s.id === request.id ? updated : s)) };
      emit('subscriptions', snapshot.subscriptions);
      return updated;
    },
    editSubscription: (request: { id: string; userAgent: string | null }) => {
      const found = snapshot.subscriptions.find((s) => s.id === request.id);
      if (!found) throw new EngineRefusal('no-such-subscription', `no subscription with id "${request.id}"`);
      const { userAgent: _previous, ...rest } = found;
      const edited = request.userAgent === null ? rest : { ...rest, userAgent: request.userAgent };
      snapshot = { ...snapshot, subscriptions: snapshot.subscriptions.map((s) => (s.id === request.id ? edited : s)) };
      emit('subscriptions', snapshot.subscriptions);
      return edited;
    },
    removeSubscription: (request: { id: string }) => {
      snapshot = { ...snapshot, subscriptions: snapshot.subscriptions.filter((s) => s.id !== request.id) };
      emit('subscriptions', snapshot.subscriptions);
      return null;
    },
    reorderSubscriptions: (request: { ids: string[] }) => {
      const byId = new Map(snapshot.subscriptions.map((s) => [s.id, s]));
      snapshot = { ...snapshot, subscriptions: request.ids.map((id) => byId.get(id)!).filter(Boolean) };
      emit('subscriptions', snapshot.subscriptions);
      return null;
    },
    confirmEmptySubscription: (request: { id: string }) => {
      const found = snapshot.subscriptions.find((s) => s.id === request.id)!;
      const emptied = { ...found, servers: [], pendingEmpty: false };
      snapshot = { ...snapshot, subscriptions: snapshot.subscriptions.map((s) => (s.id === request.id ? emptied : s)) };
      emit('subscriptions', snapshot.subscriptions);
      return emptied;
    },
    connect: (request: { serverId?: string }) => {
      // As the host does: a manual choice turns Auto off for that subscription; no choice means
      // the host's own (here simply: the last server, else the Auto subscription's first, else the first).
      let serverId = request.serverId;
      if (serverId !== undefined) {
        if (snapshot.auto.subscriptionId === subscriptionOf(serverId)?.id) setAuto({ ...snapshot.auto, subscriptionId: null });
      } else {
        const autoFirst = snapshot.subscriptions.find((s) => s.id === snapshot.auto.subscriptionId)?.servers[0]?.id;
        serverId = snapshot.connection.serverId ?? autoFirst ?? snapshot.subscriptions.flatMap((s) => s.servers)[0]?.id;
        if (!serverId) throw new EngineRefusal('no-server-chosen', 'choose a server to connect to, or turn Auto on for a subscription');
      }
      const connection = {
        ...snapshot.connection,
        state: 'connected' as const,
        serverId,
        since: now(),
        httpProxy: 'http://127.0.0.1:10809',
        socksProxy: 'socks5://127.0.0.1:10808',
        error: null,
      };
      snapshot = { ...snapshot, connection };
      emit('connection', connection);
      return connection;
    },
    disconnect: () => {
      const connection = { ...snapshot.connection, state: 'disconnected' as const, since: null, httpProxy: null, socksProxy: null };
      snapshot = { ...snapshot, connection };
      emit('connection', connection);
      return connection;
    },
    setAuto: (request: { subscriptionId: string | null }) => setAuto({ ...snapshot.auto, subscriptionId: request.subscriptionId }),
    setExcluded: (request: { subscriptionId: string; serverIds: string[] }) =>
      setAuto({ ...snapshot.auto, excluded: { ...snapshot.auto.excluded, [request.subscriptionId]: request.serverIds } }),
    setGroupExcluded: (request: { group: string; serverIds: string[] }) =>
      setAuto({ ...snapshot.auto, groups: snapshot.auto.groups?.map((g) => (g.name === request.group ? { ...g, excluded: request.serverIds } : g)) }),
    testAll: () => {
      const total = snapshot.subscriptions.reduce((n, s) => n + s.servers.length, 0);
      snapshot = { ...snapshot, testProgress: { running: true, done: 0, total } };
      emit('testProgress', snapshot.testProgress);
      return null;
    },
    testServer: (request: { serverId: string }) => patchStatus(request.serverId, { testing: false, downForNow: false, delayMs: 70, testedAt: now(), fromCache: false, error: null }),
    measureThroughput: (request: { serverId: string }) => patchStatus(request.serverId, { throughputBps: 3_400_000, throughputTest: { bytes: 4_194_304, at: now() } }),
    // A run that starts and stays at its first server until cancelled (the component tests drive the rest by events).
    startSpeedTest: (request: { scope: { kind: string; serverIds?: string[]; subscriptionId?: string }; bytes?: number; parallel?: number }) => {
      const all = snapshot.subscriptions.flatMap((s) => s.servers);
      const total =
        request.scope.kind === 'servers'
          ? (request.scope.serverIds?.length ?? 0)
          : request.scope.kind === 'subscription'
            ? (snapshot.subscriptions.find((s) => s.id === request.scope.subscriptionId)?.servers.length ?? 0)
            : all.length;
      const progress = { ...IDLE_SPEED_TEST, running: true, total, startedAt: now(), bytesPerServer: request.bytes ?? IDLE_SPEED_TEST.bytesPerServer, parallel: request.parallel ?? IDLE_SPEED_TEST.parallel };
      snapshot = { ...snapshot, speedTest: progress };
      emit('speedTestProgress', progress);
      return progress;
    },
    cancelSpeedTest: () => {
      const progress = { ...snapshot.speedTest, running: false, cancelling: false, remainingMs: null, ended: snapshot.speedTest.running ? ('cancelled' as const) : snapshot.speedTest.ended };
      snapshot = { ...snapshot, speedTest: progress };
      emit('speedTestProgress', progress);
      return progress;
    },
    // TCP answers in 41 ms; this machine's ping is not permitted, as on many desktops without it.
    measureDirect: (request: { serverId: string; method: 'tcp' | 'icmp' }) => ({
      outcome:
        request.method === 'tcp'
          ? { method: 'tcp' as const, available: true as const, measurement: { at: now(), method: 'tcp' as const, delayMs: 41 } }
          : { method: 'icmp' as const, available: false as const, reason: 'the system ping is not permitted to send ICMP here' },
      status: patchStatus(request.serverId, {}),
    }),
    getHistory: (request: { serverId: string }) => measurementsFor(request.serverId.length, now()),
    getServerStatus: (request: { serverId: string }) => whole.get(request.serverId) ?? makeStatus(request.serverId),
    exportObservation: () => ({ exportedAt: now(), servers: [], batch: { confirmedFailures: 0, overturnedFailures: 0 } }),
    // An hour of the new rule at 200 servers: delay probes of all, transfer tests of the six in focus.
    testTraffic: () => {
      const hour = { delay: { up: 420_000, down: 1_150_000 }, transfer: { up: 26_000, down: 4_700_000 }, 'ip-info': { up: 3_000, down: 9_000 }, reachability: { up: 0, down: 0 }, 'speed-test': { up: 0, down: 0 } };
      const day = { delay: { up: 9_000_000, down: 26_000_000 }, transfer: { up: 600_000, down: 110_000_000 }, 'ip-info': { up: 40_000, down: 120_000 }, reachability: { up: 8_000, down: 30_000 }, 'speed-test': { up: 0, down: 0 } };
      const cap = snapshot.settings.monitor.testBudgetBytesPerDay;
      return { lastHour: hour, lastDay: day, capBytesPerDay: cap, capped: cap > 0 && cap <= 145_798_000 };
    },
    listCores: () => sampleCoreList(snapshot),
    setSettings: (patch: Record<string, unknown>) => {
      const settings = settingsSchema.parse({
        ...snapshot.settings,
        ...patch,
        monitor: { ...snapshot.settings.monitor, ...((patch.monitor as object | undefined) ?? {}) },
      });
      snapshot = { ...snapshot, settings };
      emit('settings', settings);
      return settings;
    },
    labControl: () => null,
    // As the host does, in short: an address is a subscription, anything else share links.
    offerImport: (request: { text: string; source: 'qr' | 'paste'; name?: string }) => {
      const text = request.text.trim();
      const target = /^https?:\/\//.test(text) ? { kind: 'subscription' as const, url: text } : { kind: 'links' as const, text, excerpt: text.replace(/\/\/[^@]*@/, '//***@') };
      const offered = { id: `i${snapshot.importRequests.length + 1}`, receivedAt: now(), source: request.source, name: request.name ?? null, target };
      snapshot = { ...snapshot, importRequests: [...snapshot.importRequests, offered] };
      emit('importRequests', snapshot.importRequests);
      return offered;
    },
    answerImport: (request: { id: string; accept: boolean }) => {
      const found = snapshot.importRequests.find((r) => r.id === request.id);
      if (!found) throw new Error('that import request was already answered');
      snapshot = { ...snapshot, importRequests: snapshot.importRequests.filter((r) => r.id !== request.id) };
      emit('importRequests', snapshot.importRequests);
      if (!request.accept || found.target.kind === 'unreadable') return null;
      const source = found.target.kind === 'subscription' ? { url: found.target.url } : { text: found.target.text };
      return handlers.addSubscription({ ...source, ...(found.name ? { name: found.name } : {}) } as never);
    },
    shareLink: (request: { serverId?: string; subscriptionId?: string }) => {
      if (request.subscriptionId) return { link: snapshot.subscriptions.find((s) => s.id === request.subscriptionId)?.url ?? null };
      const server = snapshot.subscriptions.flatMap((s) => s.servers).find((s) => s.id === request.serverId);
      if (!server) throw new EngineRefusal('no-such-server', `no server with id "${request.serverId}" (it may have left its subscription)`);
      return { link: `trojan://secret-of-${server.id}@${server.address}:${server.port}#${encodeURIComponent(server.name)}` };
    },
    captureScreen: () => {
      throw new EngineRefusal('screen-reading-unavailable', 'reading the screen is possible only in the desktop app');
    },
    getSharing: () => ({
      addresses: [{ address: '192.168.1.5', interface: 'wlan0' }],
      notPrivate: [{ address: '100.64.12.9', interface: 'wwan0' }],
      listening: snapshot.settings.sharing.enabled && snapshot.connection.state === 'connected' ? { httpProxy: `http://${snapshot.settings.sharing.address}:${snapshot.settings.httpPort}`, socksProxy: `socks5://${snapshot.settings.sharing.address}:${snapshot.settings.socksPort}` } : null,
      failedLogins: 3,
      lastFailedAt: 1_700_000_000_000,
    }),
    sharingCredentials: () => ({ username: 'homeAbCdEf', password: 'household-password-20' }),
    listApps: (request: { entries: string[] }) => ({
      installed: [
        { name: 'Bank', path: '/opt/bank/bank', icon: null },
        { name: 'Firefox', path: '/usr/bin/firefox', icon: 'data:image/png;base64,iVBORw==' },
      ],
      running: [{ name: 'discord', path: '/opt/discord/Discord', icon: null }],
      present: Object.fromEntries(request.entries.map((entry) => [entry, entry !== '/opt/removed/app'])),
    }),
    dismissProblem: (request: { id: string }) => {
      snapshot = { ...snapshot, problems: snapshot.problems.filter((p) => p.id !== request.id) };
      emit('problems', snapshot.problems);
      return null;
    },
  };

  const client = {
    calls: [] as RecordedCall[],
    get snapshot() {
      return snapshot;
    },
    emit,
    callsTo(channel: InvokeChannel) {
      return client.calls.filter((c) => c.channel === channel).map((c) => c.payload);
    },
    failNext(channel: InvokeChannel, message: string, code?: string, validation?: unknown) {
      failures.set(channel, { message, ...(code === undefined ? {} : { code }), ...(validation === undefined ? {} : { validation }) });
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener as (payload: never) => void);
      return () => void set.delete(listener as (payload: never) => void);
    },
  } as unknown as FakeClient;

  for (const channel of INVOKE_CHANNELS) {
    (client as unknown as Record<string, unknown>)[channel] = async (payload: unknown) => {
      client.calls.push({ channel, payload });
      const failure = failures.get(channel);
      if (failure) {
        failures.delete(channel);
        // As the transports hand it over: an EngineRefusal for a code this build knows, else the words.
        throw refusalFromWire({ error: failure.message, code: failure.code, validation: failure.validation });
      }
      const request = parseRequest(channel, payload);
      return (handlers[channel] as (r: unknown) => unknown)(request);
    };
  }
  return client;
}
