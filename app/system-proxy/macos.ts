import { z } from 'zod';
import type { ProxyBackend, RestoreReport } from './backend';
import { type Command, type CommandRunner, command, runAll, runChecked } from './command';
import type { ProxyTarget } from './target';

/**
 * macOS keeps proxies per network service (Wi-Fi, Ethernet, …); `networksetup` reads and writes
 * them. Each enabled service gets the web (HTTP), secure web (HTTPS) and SOCKS proxy and a bypass
 * list; on restore each service gets back exactly what it had.
 *
 * Known limit: a proxy that needed a password cannot be put back with its password (the password
 * lives in the keychain and `networksetup` does not print it); host, port and on/off are restored
 * and the restore report asks the user to enter it again.
 */
export const NETWORKSETUP = '/usr/sbin/networksetup';

/** The bypass list macOS's own network settings suggest, plus loopback. */
export const MACOS_BYPASS = ['localhost', '127.0.0.1', '::1', '*.local', '169.254/16'] as const;

const proxyStateSchema = z
  .object({
    enabled: z.boolean(),
    server: z.string().max(255),
    port: z.number().int().min(0).max(65535),
    authenticated: z.boolean(),
  })
  .strict();
export type MacProxyState = z.infer<typeof proxyStateSchema>;

export const PROXY_KINDS = ['web', 'secureweb', 'socksfirewall'] as const;
export type MacProxyKind = (typeof PROXY_KINDS)[number];

const serviceSnapshotSchema = z
  .object({
    name: z.string().min(1).max(255),
    proxies: z.object({ web: proxyStateSchema, secureweb: proxyStateSchema, socksfirewall: proxyStateSchema }).strict(),
    bypass: z.array(z.string().max(255)).max(1000),
  })
  .strict();
export type MacServiceSnapshot = z.infer<typeof serviceSnapshotSchema>;

export const macSnapshotSchema = z.object({ services: z.array(serviceSnapshotSchema).max(100) }).strict();
export type MacSnapshot = z.infer<typeof macSnapshotSchema>;

export function macListServicesCommand(): Command {
  return command(NETWORKSETUP, '-listallnetworkservices');
}

/** Enabled services only: the first line is a legend, disabled services start with "*". */
export function parseMacServices(output: string): string[] {
  return output
    .split(/\r?\n/)
    .slice(1)
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('*'));
}

export function macReadServiceCommands(service: string): Command[] {
  return [
    ...PROXY_KINDS.map((kind) => command(NETWORKSETUP, `-get${kind}proxy`, service)),
    command(NETWORKSETUP, '-getproxybypassdomains', service),
  ];
}

/** Parses `-getwebproxy` style output ("Enabled: Yes", "Server: h", "Port: 8080", "Authenticated Proxy Enabled: 0"). */
export function parseMacProxyState(output: string): MacProxyState {
  const field = (name: string) => new RegExp(`^${name}:[ \\t]*(.*)$`, 'm').exec(output)?.[1]?.trim() ?? '';
  const enabledText = field('Enabled');
  if (!/^(Yes|No)$/.test(enabledText)) throw new Error(`unexpected networksetup output: ${JSON.stringify(output.slice(0, 120))}`);
  const port = Number(field('Port'));
  return {
    enabled: enabledText === 'Yes',
    server: field('Server'),
    port: Number.isInteger(port) && port >= 0 && port <= 65535 ? port : 0,
    authenticated: field('Authenticated Proxy Enabled') === '1',
  };
}

/** One domain per line, or a sentence ("There aren't any bypass domains set on Wi-Fi.") when none. */
export function parseMacBypass(output: string): string[] {
  const lines = output.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  if (lines.length === 1 && /^There aren't any bypass domains/i.test(lines[0]!)) return [];
  return lines;
}

export function macApplyCommands(service: string, target: ProxyTarget): Command[] {
  const host = target.host;
  const http = String(target.httpPort);
  return [
    command(NETWORKSETUP, '-setwebproxy', service, host, http),
    command(NETWORKSETUP, '-setsecurewebproxy', service, host, http),
    target.socksPort === null
      ? command(NETWORKSETUP, '-setsocksfirewallproxystate', service, 'off')
      : command(NETWORKSETUP, '-setsocksfirewallproxy', service, host, String(target.socksPort)),
    command(NETWORKSETUP, '-setproxybypassdomains', service, ...MACOS_BYPASS),
    command(NETWORKSETUP, '-setwebproxystate', service, 'on'),
    command(NETWORKSETUP, '-setsecurewebproxystate', service, 'on'),
  ];
}

/**
 * Each proxy back to its server, port and on/off. A proxy that had no server is only switched off
 * (`networksetup` cannot clear a server; a switched-off entry is ignored by the system).
 */
export function macRestoreCommands(previous: MacServiceSnapshot): Command[] {
  const service = previous.name;
  const commands: Command[] = [];
  for (const kind of PROXY_KINDS) {
    const state = previous.proxies[kind];
    if (state.server !== '') commands.push(command(NETWORKSETUP, `-set${kind}proxy`, service, state.server, String(state.port)));
    commands.push(command(NETWORKSETUP, `-set${kind}proxystate`, service, state.enabled ? 'on' : 'off'));
  }
  commands.push(
    previous.bypass.length === 0
      ? command(NETWORKSETUP, '-setproxybypassdomains', service, 'Empty')
      : command(NETWORKSETUP, '-setproxybypassdomains', service, ...previous.bypass),
  );
  return commands;
}

export function macServiceIsOurs(current: MacServiceSnapshot, target: ProxyTarget): boolean {
  const web = current.proxies.web;
  return web.enabled && web.server === target.host && web.port === target.httpPort;
}

async function readService(run: CommandRunner, name: string): Promise<MacServiceSnapshot> {
  const outputs: string[] = [];
  for (const cmd of macReadServiceCommands(name)) outputs.push(await runChecked(run, cmd));
  const [web, secureweb, socksfirewall, bypass] = outputs;
  return {
    name,
    proxies: {
      web: parseMacProxyState(web!),
      secureweb: parseMacProxyState(secureweb!),
      socksfirewall: parseMacProxyState(socksfirewall!),
    },
    bypass: parseMacBypass(bypass!),
  };
}

export function macosBackend(): ProxyBackend<MacSnapshot> {
  return {
    id: 'macos',
    snapshotSchema: macSnapshotSchema,
    async read(run) {
      const names = parseMacServices(await runChecked(run, macListServicesCommand()));
      const services: MacServiceSnapshot[] = [];
      for (const name of names) services.push(await readService(run, name));
      return { services };
    },
    async apply(run, target, previous) {
      for (const service of previous.services) await runAll(run, macApplyCommands(service.name, target));
    },
    async restore(run, previous, applied): Promise<RestoreReport> {
      const report: RestoreReport = { restored: [], leftAlone: [], warnings: [] };
      for (const service of previous.services) {
        let current: MacServiceSnapshot;
        try {
          current = await readService(run, service.name);
        } catch {
          // The service is gone (an adapter unplugged): nothing of ours is left on it.
          report.leftAlone.push(service.name);
          continue;
        }
        if (!macServiceIsOurs(current, applied)) {
          report.leftAlone.push(service.name);
          continue;
        }
        await runAll(run, macRestoreCommands(service));
        report.restored.push(service.name);
        for (const kind of PROXY_KINDS) {
          if (service.proxies[kind].authenticated) {
            report.warnings.push(`${service.name}: the ${kind} proxy needs its password entered again in the network settings`);
          }
        }
      }
      return report;
    },
  };
}
