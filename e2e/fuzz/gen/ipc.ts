import fc from 'fast-check';
import { INVOKE_CHANNELS, LAB_FAULTS } from '../../../shared/ipc/contract';
import { mutated, wrongJsonValue } from './mutate';

/**
 * What a renderer, a foreign page or a broken client may send: settings patches, requests for
 * every IPC channel (right shape, wrong shape, too big), and WebSocket frames around them.
 */
const CHANNEL_NAMES = [...INVOKE_CHANNELS];

/** Names that are not channels but exist on every object: a lookup by name must not find them. */
export const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

const longString = (n: number) => 'a'.repeat(n);

const id = fc.oneof(
  { weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constantFrom('', longString(128), longString(129), ' ', '\u0000', '../../etc/passwd') },
  { weight: 1, arbitrary: wrongJsonValue },
);
const url = fc.oneof(fc.webUrl(), fc.constantFrom('not a url', 'javascript:alert(1)', 'file:///etc/passwd', `https://a.example/${longString(8200)}`, 'http://127.0.0.1:1/sub'), wrongJsonValue);
const ids = fc.oneof({ weight: 6, arbitrary: fc.array(id, { maxLength: 8 }) }, { weight: 1, arbitrary: wrongJsonValue });

/**
 * A payload near the shape each channel expects, with fields that may be wrong, missing or extra.
 * Inputs stay small (the time budget is for pathological inputs, not big ones); the size limits
 * themselves are probed by `SIZE_PROBES`.
 */
const nearPayload: Record<string, fc.Arbitrary<unknown>> = {
  addSubscription: fc.record(
    {
      url,
      text: fc.oneof({ weight: 8, arbitrary: fc.string({ maxLength: 200 }) }, { weight: 1, arbitrary: wrongJsonValue }),
      name: fc.oneof(fc.string({ maxLength: 30 }), fc.constant(longString(201)), wrongJsonValue),
    },
    { requiredKeys: [] },
  ),
  updateSubscription: fc.record({ id }),
  editSubscription: fc.record(
    { id, userAgent: fc.oneof(fc.string({ maxLength: 40 }), fc.constant(null), fc.constant(longString(301)), wrongJsonValue) },
    { requiredKeys: [] },
  ),
  removeSubscription: fc.record({ id }),
  confirmEmptySubscription: fc.record({ id }),
  reorderSubscriptions: fc.record({ ids }),
  connect: fc.record({ serverId: id }),
  setAuto: fc.record({ subscriptionId: fc.oneof(id, fc.constant(null)) }),
  setExcluded: fc.record({ subscriptionId: id, serverIds: ids }, { requiredKeys: [] }),
  testServer: fc.record({ serverId: id }),
  measureThroughput: fc.record({ serverId: id }),
  getHistory: fc.record({ serverId: id }),
  labControl: fc.oneof(
    fc.record({ action: fc.constant('fault'), serverId: id, fault: fc.oneof(fc.constantFrom(...LAB_FAULTS), fc.string()) }, { requiredKeys: ['action'] }),
    fc.record({ action: fc.constantFrom('network', 'other', ''), state: fc.constantFrom('online', 'offline', 'down') }, { requiredKeys: [] }),
  ),
};

const port = fc.oneof(fc.integer({ min: 1, max: 65535 }), wrongJsonValue, fc.constantFrom(0, 65536, 80.5, -1));
const duration = fc.oneof(fc.integer({ min: 0, max: 8 * 24 * 3600 * 1000 }), wrongJsonValue);

export const settingsPatch: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      {
        corePath: fc.oneof(fc.constant(null), fc.string({ maxLength: 40 }), wrongJsonValue),
        httpPort: port,
        socksPort: port,
        allowLan: fc.oneof(fc.boolean(), wrongJsonValue),
        stallThresholdMs: duration,
        language: fc.oneof(fc.constantFrom('en', 'ru', 'fa', 'ar', 'zh', 'system', 'de', ''), wrongJsonValue),
        theme: fc.constantFrom('light', 'dark', 'system', 'blue'),
        logLevel: fc.constantFrom('debug', 'info', 'warning', 'error', 'trace'),
        mode: fc.oneof(fc.constantFrom('proxy', 'system-proxy', 'system-wide', 'tun'), wrongJsonValue),
        trustedCheckerId: fc.oneof(fc.constant(null), fc.string({ maxLength: 20 })),
        monitor: fc.oneof(
          fc.record(
            {
              intervalMs: duration,
              urls: fc.oneof(fc.array(url, { maxLength: 3 }), wrongJsonValue),
              ipInfoUrl: fc.oneof(fc.constant(''), url),
              ipInfoUrls: fc.oneof(fc.dictionary(fc.constantFrom('ipapi.co', 'ipinfo.io', 'cloudflare-trace', 'nope'), url, { maxKeys: 3 }), wrongJsonValue),
              verifyIpv6: fc.oneof(fc.boolean(), wrongJsonValue),
              workers: fc.oneof(fc.integer({ min: 0, max: 70 }), wrongJsonValue),
              urlTestTimeoutMs: duration,
              onDemandTimeoutsMs: fc.oneof(fc.array(duration, { maxLength: 6 }), wrongJsonValue),
              idleTimeoutMs: duration,
              debounceWindowMs: duration,
              throughputBytes: fc.oneof(fc.integer({ min: 0, max: 2 * 1024 ** 3 }), wrongJsonValue),
            },
            { requiredKeys: [] },
          ),
          wrongJsonValue,
        ),
        extra: wrongJsonValue,
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: wrongJsonValue },
  { weight: 1, arbitrary: fc.constant(JSON.parse('{"__proto__":{"httpPort":1},"constructor":{"prototype":{}}}')) },
);

export interface IpcInput {
  channel: string;
  payload: unknown;
}

export const ipcRequest: fc.Arbitrary<IpcInput> = fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .constantFrom(...CHANNEL_NAMES)
        .chain((channel) => fc.record({ channel: fc.constant(channel), payload: channel === 'setSettings' ? settingsPatch : (nearPayload[channel] ?? fc.oneof(fc.constant({}), wrongJsonValue)) })),
    },
    { weight: 2, arbitrary: fc.record({ channel: fc.constantFrom(...CHANNEL_NAMES), payload: fc.oneof(wrongJsonValue, fc.anything()) }) },
    { weight: 1, arbitrary: fc.record({ channel: fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string({ maxLength: 70 })), payload: fc.constant({}) }) },
);

/**
 * Requests one item over each size limit of the contract (and one at it), checked directly
 * rather than generated: building a 16 MiB string per input would measure the generator.
 */
export function sizeProbes(): { channel: string; field: string; atLimit: unknown; overLimit: unknown }[] {
  const names = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`);
  return [
    { channel: 'addSubscription', field: 'text', atLimit: { text: longString(16 * 1024 * 1024) }, overLimit: { text: longString(16 * 1024 * 1024 + 1) } },
    { channel: 'addSubscription', field: 'url', atLimit: { url: `https://a.example/${longString(8192 - 18)}` }, overLimit: { url: `https://a.example/${longString(8192 - 17)}` } },
    { channel: 'addSubscription', field: 'name', atLimit: { text: 'x', name: longString(200) }, overLimit: { text: 'x', name: longString(201) } },
    { channel: 'connect', field: 'serverId', atLimit: { serverId: longString(128) }, overLimit: { serverId: longString(129) } },
    { channel: 'reorderSubscriptions', field: 'ids', atLimit: { ids: names(1000) }, overLimit: { ids: names(1001) } },
    { channel: 'setExcluded', field: 'serverIds', atLimit: { subscriptionId: 'a', serverIds: names(100_000) }, overLimit: { subscriptionId: 'a', serverIds: names(100_001) } },
  ];
}

/** A WebSocket text frame a client could send the headless host. */
export const wireFrame: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(ipcRequest, fc.oneof({ weight: 6, arbitrary: fc.nat() }, { weight: 1, arbitrary: wrongJsonValue }), fc.constantFrom('invoke', 'result', 'event', '')).map(([r, frameId, kind]) => JSON.stringify({ kind, id: frameId, channel: r.channel, payload: r.payload })) },
  { weight: 2, arbitrary: fc.tuple(ipcRequest, fc.nat()).map(([r, frameId]) => JSON.stringify({ kind: 'invoke', id: frameId, channel: r.channel, payload: r.payload, extra: 1 })) },
  { weight: 2, arbitrary: mutated(fc.tuple(ipcRequest, fc.nat()).map(([r, frameId]) => JSON.stringify({ kind: 'invoke', id: frameId, channel: r.channel, payload: r.payload })), 2) },
  { weight: 1, arbitrary: fc.oneof(fc.string({ unit: 'binary', maxLength: 100 }), fc.jsonValue().map((v) => JSON.stringify(v))) },
);
