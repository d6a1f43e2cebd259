/**
 * Every input generator of the fuzzing, shared by the fast `*.fuzz.test.ts` subset and the full
 * `npm run bench -- fuzz` run.
 */
export { applyMutation, deepNesting, mutated, mutationArb, perturbedJson, sometimesMutated, wrongJsonValue } from './gen/mutate';
export { LINK_SCHEMES, protocolOf, serverSpecArb, shareLink, validLinkArb, type ServerSpec } from './gen/servers';
export { clashProxy, singBoxConfig, xrayConfig } from './gen/configs';
export { clashBody, deeplyNestedBody, jsonBody, linkListBody, noiseBody, shareLinkBody, textBody, toBase64, yamlAliasBomb } from './gen/bodies';
export { ipInfoInput, IP_INFO_SOURCES, type IpInfoInput } from './gen/ipinfo';
export { coreLogLine, coreLogSession } from './gen/core-log';
export { scenarioText } from './gen/scenario';
export { ipcRequest, PROTOTYPE_NAMES, settingsPatch, sizeProbes, wireFrame, type IpcInput } from './gen/ipc';
