/** `npm run lab -- [--servers 12] [--subscriptions 3] [--seed 1] [--latency 20-300] [--v2ray PATH] [--modern [--xray PATH] [--sing-box PATH]] [--selftest]` */
import type { LabOptions } from './types';

export interface LabCommand {
  options: LabOptions;
  selftest: boolean;
}

function whole(name: string, value: string | undefined): number {
  if (value === undefined || !/^\d+$/.test(value)) throw new Error(`--${name} needs a whole number, got ${value === undefined ? 'nothing' : `"${value}"`}`);
  return Number(value);
}

export function parseLabArgs(argv: readonly string[]): LabCommand {
  const options: LabOptions = {};
  let selftest = false;
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i] as string;
    const value = argv[i + 1];
    switch (flag) {
      case '--servers':
        options.servers = whole('servers', value);
        i += 1;
        break;
      case '--subscriptions':
        options.subscriptions = whole('subscriptions', value);
        i += 1;
        break;
      case '--seed':
        options.seed = whole('seed', value);
        i += 1;
        break;
      case '--latency': {
        const match = /^(\d+)-(\d+)$/.exec(value ?? '');
        if (!match) throw new Error(`--latency needs a range like 20-300 (ms), got ${value === undefined ? 'nothing' : `"${value}"`}`);
        options.latency = [Number(match[1]), Number(match[2])];
        i += 1;
        break;
      }
      case '--v2ray':
        if (!value) throw new Error('--v2ray needs the path of a v2ray binary');
        options.v2rayPath = value;
        i += 1;
        break;
      case '--selftest':
        selftest = true;
        break;
      case '--modern':
        options.modern = true;
        break;
      case '--xray':
      case '--sing-box': {
        if (!value) throw new Error(`${flag} needs the path of a ${flag.slice(2)} binary`);
        if (flag === '--xray') options.xrayPath = value;
        else options.singBoxPath = value;
        i += 1;
        break;
      }
      default:
        throw new Error(`unknown option "${flag}"; usage: npm run lab -- [--servers 12] [--subscriptions 3] [--seed 1] [--latency 20-300] [--v2ray PATH] [--modern [--xray PATH] [--sing-box PATH]] [--selftest]`);
    }
  }
  return { options, selftest };
}
