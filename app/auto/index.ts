/** Auto's public face for the composition root: the runtime, its ports and its persisted state. */
export { AutoRuntime, autoConfigFrom, type AutoRuntimeOptions, type Outcome } from './runtime';
export type { AutoProbePort, AutoProbeResult, AutoStatePort, MeasurementPort, ReachabilityPort, SubscriptionsPort, TunnelPort } from './ports';
export { autoStateFile, persistedAutoStateSchema, NOTHING_PERSISTED } from './persisted';
export type { PersistedAutoState } from './policy/state';
export type { SubscriptionServers } from './policy/world';
export type { AutoConfig } from './policy/constants';
export { describeDecision } from './describe';
export { GroupPicker, groupSubscriptionId, type GroupPickerOptions, type PersistedGroupPick } from './groups';
export { groupPicksFile, type PersistedGroupPicks } from './group-picks-file';
