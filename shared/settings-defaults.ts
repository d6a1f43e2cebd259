/**
 * The settings of a fresh install as a plain value: settings.ts's DEFAULT_SETTINGS, which its
 * schemas make (the test beside this file holds the two equal). The window shows these before its
 * first snapshot and reads them here, so its first bundle goes without the schemas (zod).
 */
import type { Settings } from './settings';

export const DEFAULT_SETTINGS: Settings = {
  corePath: null,
  httpPort: 10809,
  socksPort: 10808,
  allowLan: false,
  stallThresholdMs: 5000,
  monitor: {
    intervalMs: 300000,
    urls: ['https://www.gstatic.com/generate_204'],
    ipInfoUrl: '',
    ipInfoUrls: {},
    verifyIpv6: false,
    workers: 10,
    urlTestTimeoutMs: 5000,
    onDemandTimeoutsMs: [1000, 3000, 10000],
    idleTimeoutMs: 600000,
    debounceWindowMs: 500,
    throughputBytes: 4194304,
    transferTestBytes: 65536,
    transferTestUrl: 'https://speed.cloudflare.com/__down?bytes={bytes}',
    transferTestCandidates: 5,
    transferTestEveryServer: false,
    testBudgetBytesPerDay: 0,
  },
  language: 'system',
  theme: 'system',
  logLevel: 'info',
  trustedCheckerId: null,
  mode: 'proxy',
  systemWideCapture: 'tproxy',
  killSwitch: false,
  killSwitchAllowLan: false,
  startAtLogin: false,
  connectOnStart: false,
  routing: {
    preset: 'global',
    bypassLan: true,
    blockAds: false,
    domainStrategy: 'IPIfNonMatch',
    rules: [],
    hosts: {},
    ruleSets: [],
  },
  dns: {
    remote: 'https://1.1.1.1/dns-query',
    domestic: 'system',
  },
  antiDpi: {
    fragment: {
      enabled: false,
      packets: 'tlshello',
      length: '100-200',
      interval: '10-20',
    },
    noise: {
      enabled: false,
      type: 'rand',
      packet: '10-20',
      delay: '10-16',
    },
    servers: {},
  },
  chains: {},
  groups: [],
  sharing: {
    enabled: false,
    address: '',
  },
  perApp: {
    mode: 'off',
    bypass: [],
    only: [],
  },
};
