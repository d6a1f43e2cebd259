/**
 * The one declaration of what the renderer may ask the host and what the host tells it.
 * Electron's preload and IPC handlers, the headless host's WebSocket and the renderer's client
 * are all derived from these two maps; every request is validated against its schema before a
 * service sees it.
 */
import type { TestTrafficUsage } from '../domain/test-traffic';
import { MAX_SPEED_TEST_BYTES, MAX_SPEED_TEST_PARALLEL, MIN_SPEED_TEST_BYTES, type SpeedTestProgress } from '../domain/speed-test';
import { EngineRefusal } from '../domain/refusal';
import { validationOf } from '../domain/validation';
import { z } from 'zod';
import type { AutoSnapshot } from '../domain/auto';
import type { ConnectionState, CoreSummary, TrafficSample } from '../domain/connection';
import type { CoreList } from '../domain/cores';
import type { DirectTestOutcome, Measurement } from '../domain/measurement';
import type { ImportRequest } from '../domain/import-request';
import type { AppProblem } from '../domain/problem';
import type { RoutingView } from '../domain/routing';
import type { LatestStatus, ObservatoryStatus, ServerStatus } from '../domain/status';
import type { Server, ServerId, SubscriptionId } from '../domain/server';
import type { Subscription } from '../domain/subscription';
import { serverGroupSchema, type Settings, settingsPatchSchema } from '../settings';
import type { SharingCredentials, SharingView } from '../sharing';
import type { AppListing } from '../per-app';
import { EVENT_NAMES, type EventName, INVOKE_CHANNELS, type InvokeChannel } from './channels';

export { EVENT_NAMES, type EventName, INVOKE_CHANNELS, type InvokeChannel };

const id = z.string().min(1).max(128);
const MAX_PASTED_TEXT = 16 * 1024 * 1024;
/** The longest User-Agent a subscription may be fetched with (real ones are well under 200). */
export const MAX_USER_AGENT = 300;
/** A subscription's own User-Agent: what goes into the HTTP header as is, so one line of printable ASCII. */
export const userAgentSchema = z
  .string()
  .trim()
  .min(1, 'the User-Agent is empty')
  .max(MAX_USER_AGENT, `the User-Agent is longer than ${MAX_USER_AGENT} characters`)
  .regex(/^[\x20-\x7e]+$/, 'the User-Agent must be printable ASCII: letters, digits, spaces and punctuation, on one line');

export const LAB_FAULTS = ['none', 'blackhole', 'reset', 'refuse', 'slow', 'flap', 'blocked-here'] as const;
export type LabFault = (typeof LAB_FAULTS)[number];

export const invokeSchemas = {
  getSnapshot: z.object({}).strict(),
  addSubscription: z
    .object({
      url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(8192).optional(),
      text: z.string().max(MAX_PASTED_TEXT).optional(),
      name: z.string().max(200).optional(),
      /** Fetch this subscription with its own User-Agent (some panels choose the format by it). */
      userAgent: userAgentSchema.optional(),
    })
    .strict()
    .refine((r) => (r.url === undefined) !== (r.text === undefined), 'give either a URL or pasted text'),
  updateSubscription: z.object({ id }).strict(),
  /** A subscription's own User-Agent changed, or (null) dropped for the app's default; the next update uses it. */
  editSubscription: z.object({ id, userAgent: userAgentSchema.nullable() }).strict(),
  removeSubscription: z.object({ id }).strict(),
  reorderSubscriptions: z.object({ ids: z.array(id).max(1000) }).strict(),
  confirmEmptySubscription: z.object({ id }).strict(),
  /** With a server: the user's own choice (Auto turns off for its subscription). Without: connect to Auto's pick or the last server. */
  connect: z.object({ serverId: id.optional() }).strict(),
  disconnect: z.object({}).strict(),
  setAuto: z.object({ subscriptionId: id.nullable() }).strict(),
  setExcluded: z.object({ subscriptionId: id, serverIds: z.array(id).max(100_000) }).strict(),
  /** A server group's own marks after "Done": members kept off this group's sites (the servers' own Auto marks hold too). */
  setGroupExcluded: z.object({ group: serverGroupSchema.shape.name, serverIds: z.array(id).max(100_000) }).strict(),
  testAll: z.object({}).strict(),
  testServer: z.object({ serverId: id }).strict(),
  measureThroughput: z.object({ serverId: id }).strict(),
  /** The bulk speed test of the selection, a subscription or all: `bytes` each, `parallel` at a time. */
  startSpeedTest: z
    .object({
      scope: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('servers'), serverIds: z.array(id).min(1).max(100_000) }).strict(),
        z.object({ kind: z.literal('subscription'), subscriptionId: id }).strict(),
        z.object({ kind: z.literal('all') }).strict(),
      ]),
      bytes: z.number().int().min(MIN_SPEED_TEST_BYTES).max(MAX_SPEED_TEST_BYTES).optional(),
      parallel: z.number().int().min(1).max(MAX_SPEED_TEST_PARALLEL).optional(),
    })
    .strict(),
  /** Stops every download of the speed test; answers when the last has stopped. */
  cancelSpeedTest: z.object({}).strict(),
  measureDirect: z.object({ serverId: id, method: z.enum(['tcp', 'icmp']) }).strict(),
  getHistory: z.object({ serverId: id }).strict(),
  /** A server's whole status, statistics and last measurements included (the details ask for it). */
  getServerStatus: z.object({ serverId: id }).strict(),
  exportObservation: z.object({}).strict(),
  /** What testing used in the last hour and day, by kind, and the daily cap (Settings → Testing). */
  testTraffic: z.object({}).strict(),
  /** Every core on this machine, its role and abilities, and how many servers each carries (as `cli cores`). */
  listCores: z.object({}).strict(),
  setSettings: settingsPatchSchema,
  dismissProblem: z.object({ id }).strict(),
  /**
   * Text the UI found (a QR code in a picture) or the user pasted into the import box: it becomes
   * an import request the user confirms. The box may name it and give a User-Agent.
   */
  offerImport: z
    .object({
      text: z.string().min(1).max(MAX_PASTED_TEXT),
      source: z.enum(['qr', 'paste']),
      name: z.string().max(200).optional(),
      userAgent: userAgentSchema.optional(),
    })
    .strict(),
  /**
   * The user's answer to an import request: add what it proposes, or drop it. A subscription is
   * added only with servers from a working fetch, unless `keep` (the user's "Keep and retry later").
   */
  answerImport: z.object({ id, accept: z.boolean(), keep: z.boolean().optional() }).strict(),
  /** The share link of a server, or a subscription's address: asked for only when the user chooses to see it (it carries credentials). */
  shareLink: z.union([z.object({ serverId: id }).strict(), z.object({ subscriptionId: id }).strict()]),
  /** One picture of the screen, after the user agreed, to look for a QR code in (the desktop app only). */
  captureScreen: z.object({}).strict(),
  /** Household sharing's page: addresses to pick from, where it listens, refused logins. */
  getSharing: z.object({}).strict(),
  /** The household's username and password: asked for only when the user chooses to see them (made on first use). */
  sharingCredentials: z.object({}).strict(),
  /** The app picker: installed and running programs, and which of these list entries are on this machine. */
  listApps: z.object({ entries: z.array(z.string().max(1024)).max(1000) }).strict(),
  labControl: z
    .discriminatedUnion('action', [
      z.object({ action: z.literal('fault'), serverId: id, fault: z.enum(LAB_FAULTS) }).strict(),
      z.object({ action: z.literal('network'), state: z.enum(['online', 'offline']) }).strict(),
    ]),
} as const satisfies Record<InvokeChannel, z.ZodType>;

export type InvokeRequest<C extends InvokeChannel> = z.input<(typeof invokeSchemas)[C]>;

/**
 * A server as the window's list holds it: what the rows, search, sort and filters read. The rest
 * of a server (transport, security, credentials) stays in the host; with 5,000 servers it was most
 * of the window's first snapshot.
 */
/** `via`: the front a chained server is reached through (the details and the row say so). */
export type ListServer = Pick<Server, 'id' | 'subscriptionId' | 'name' | 'protocol' | 'address' | 'port' | 'via'>;

/** A subscription as the window holds it: its servers as the list needs them. */
export type ListSubscription = Omit<Subscription, 'servers'> & { servers: ListServer[] };

/**
 * A server's status as the list and the stream carry it: everything but the statistics and the
 * last measurements, which only the details show and fetch on demand (`getServerStatus`).
 */
export type ListStatus = LatestStatus;

/** Progress of a "test all" run. */
export interface TestProgress {
  running: boolean;
  done: number;
  total: number;
}

/** Everything the UI needs to draw itself from scratch. */
export interface AppSnapshot {
  subscriptions: ListSubscription[];
  statuses: Record<ServerId, ListStatus>;
  /** Servers the detected core cannot run: "not supported by v2ray 4.34.0: reason". */
  unsupported: Record<ServerId, string>;
  /** Servers a second core carries for the main one: "carried by sing-box 1.14.1: not supported by Xray 26.3.27: …". */
  carried?: Record<ServerId, string>;
  connection: ConnectionState;
  auto: AutoSnapshot;
  settings: Settings;
  core: CoreSummary | null;
  testProgress: TestProgress;
  /** The bulk speed test: how far it has got, or how the last run ended. */
  speedTest: SpeedTestProgress;
  /** The host runs the demo world: the Lab panel may be shown. */
  demo: boolean;
  /** What the user should know (unreadable files set aside, failed saves, no core), until dismissed. */
  problems: AppProblem[];
  /** Links and codes waiting for the user to confirm or decline them. */
  importRequests: ImportRequest[];
  /** The routing in force: preset, its data's date, what differs from the settings. */
  routing: RoutingView;
}

/** The observation API (spec/observatory.md): every server's status and statistics. */
export interface ObservationExport {
  exportedAt: number;
  /** Each server's status, with the observatory's own fields (alive, delay, lastSeenTime, lastTryTime) and statistics. */
  servers: (ServerStatus & ObservatoryStatus & { name: string; subscriptionId: SubscriptionId })[];
  /** Batch-test figures: failures confirmed alone before counting, and those that were not. */
  batch: { confirmedFailures: number; overturnedFailures: number };
}

export interface InvokeResponses {
  getSnapshot: AppSnapshot;
  addSubscription: ListSubscription;
  updateSubscription: ListSubscription;
  editSubscription: ListSubscription;
  removeSubscription: null;
  reorderSubscriptions: null;
  confirmEmptySubscription: ListSubscription;
  connect: ConnectionState;
  disconnect: ConnectionState;
  setAuto: AutoSnapshot;
  setExcluded: AutoSnapshot;
  setGroupExcluded: AutoSnapshot;
  testAll: null;
  testServer: ServerStatus;
  measureThroughput: ServerStatus;
  startSpeedTest: SpeedTestProgress;
  cancelSpeedTest: SpeedTestProgress;
  /** The test's outcome and the server's status after it (the measurement is its latest). */
  measureDirect: { outcome: DirectTestOutcome; status: ServerStatus };
  getHistory: Measurement[];
  getServerStatus: ServerStatus;
  exportObservation: ObservationExport;
  testTraffic: TestTrafficUsage;
  listCores: CoreList;
  setSettings: Settings;
  labControl: null;
  dismissProblem: null;
  offerImport: ImportRequest;
  /** The subscription added, or null when declined. */
  answerImport: ListSubscription | null;
  /** null: a pasted subscription has no address to share. */
  shareLink: { link: string | null };
  /** One PNG per screen, as data: URLs. */
  captureScreen: { screens: string[] };
  getSharing: SharingView;
  sharingCredentials: SharingCredentials;
  listApps: AppListing;
}

/** What the host pushes, unasked. */
export interface EventPayloads {
  snapshot: AppSnapshot;
  subscriptions: ListSubscription[];
  /** Statuses that changed, at most one message per debounce burst. */
  statuses: ListStatus[];
  connection: ConnectionState;
  traffic: TrafficSample;
  auto: AutoSnapshot;
  settings: Settings;
  testProgress: TestProgress;
  /** The speed test's progress: at its start, after each server, on cancel and at its end. */
  speedTestProgress: SpeedTestProgress;
  unsupported: Record<ServerId, string>;
  carried: Record<ServerId, string>;
  /** The whole list of problems, whenever it changes. */
  problems: AppProblem[];
  /** The whole list of waiting import requests, whenever it changes. */
  importRequests: ImportRequest[];
  routing: RoutingView;
}

// Compile-time checks that the schemas, responses and events cover exactly the declared names.
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemasCoverChannels: Exactly<keyof typeof invokeSchemas, InvokeChannel> = true;
const responsesCoverChannels: Exactly<keyof InvokeResponses, InvokeChannel> = true;
const payloadsCoverEvents: Exactly<keyof EventPayloads, EventName> = true;
void [schemasCoverChannels, responsesCoverChannels, payloadsCoverEvents];

/** The typed client the renderer talks through (`window.vpn` under Electron, a WebSocket client in a browser). */
export type VpnClient = {
  [C in InvokeChannel]: (request: InvokeRequest<C>) => Promise<InvokeResponses[C]>;
} & {
  on<E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void): () => void;
};

/** Validates a request; throws an Error naming the channel and the field at fault. */
export function parseRequest<C extends InvokeChannel>(channel: C, payload: unknown): z.output<(typeof invokeSchemas)[C]> {
  // An own-property check: a plain lookup finds Object.prototype's toString, constructor, … .
  if (!isInvokeChannel(channel)) throw new Error(`unknown channel "${String(channel).slice(0, 64)}"`);
  const schema = invokeSchemas[channel];
  const result = schema.safeParse(payload);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'request';
    const message = `invalid ${channel} request: ${where}: ${issue?.message ?? 'rejected'}`;
    // A settings patch is the user's values: the window words what is wrong with them.
    if (channel === 'setSettings' && issue) throw new EngineRefusal('invalid-setting', message, validationOf(issue, message));
    throw new Error(message);
  }
  return result.data as z.output<(typeof invokeSchemas)[C]>;
}

export function isInvokeChannel(name: unknown): name is InvokeChannel {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(invokeSchemas, name);
}
