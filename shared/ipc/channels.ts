/**
 * The names of the contract's operations and events, without their schemas: what the sandboxed
 * preload needs to expose one function per operation, kept free of zod so the preload stays small.
 * `contract.ts` checks at compile time that its schemas and payload types cover exactly these.
 */
export const INVOKE_CHANNELS = [
  'getSnapshot',
  'addSubscription',
  'updateSubscription',
  'editSubscription',
  'removeSubscription',
  'reorderSubscriptions',
  'confirmEmptySubscription',
  'connect',
  'disconnect',
  'setAuto',
  'setExcluded',
  'setGroupExcluded',
  'testAll',
  'testServer',
  'measureThroughput',
  'startSpeedTest',
  'cancelSpeedTest',
  'measureDirect',
  'getHistory',
  'getServerStatus',
  'exportObservation',
  'testTraffic',
  'listCores',
  'setSettings',
  'labControl',
  'dismissProblem',
  'offerImport',
  'answerImport',
  'shareLink',
  'captureScreen',
  'getSharing',
  'sharingCredentials',
  'listApps',
] as const;
export type InvokeChannel = (typeof INVOKE_CHANNELS)[number];

export const EVENT_NAMES = ['snapshot', 'subscriptions', 'statuses', 'connection', 'traffic', 'auto', 'settings', 'testProgress', 'speedTestProgress', 'unsupported', 'carried', 'problems', 'importRequests', 'routing'] as const;
export type EventName = (typeof EVENT_NAMES)[number];
