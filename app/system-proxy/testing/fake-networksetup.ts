import type { Command, CommandResult } from '../command';
import { NETWORKSETUP } from '../macos';

export interface FakeProxy {
  enabled: boolean;
  server: string;
  port: number;
  authenticated: boolean;
}
export interface FakeService {
  enabled: boolean;
  web: FakeProxy;
  secureweb: FakeProxy;
  socksfirewall: FakeProxy;
  bypass: string[];
}

const off = (): FakeProxy => ({ enabled: false, server: '', port: 0, authenticated: false });
export const blankService = (overrides: Partial<FakeService> = {}): FakeService => ({
  enabled: true,
  web: off(),
  secureweb: off(),
  socksfirewall: off(),
  bypass: [],
  ...overrides,
});

const ok = (stdout = ''): CommandResult => ({ code: 0, stdout, stderr: '' });
const fail = (stdout: string): CommandResult => ({ code: 4, stdout, stderr: '' });

/**
 * A stand-in for macOS's `networksetup` over a set of network services, printing what macOS
 * prints, so the macOS backend can be exercised end to end here.
 */
export class FakeNetworkSetup {
  readonly services = new Map<string, FakeService>();
  readonly commands: Command[] = [];

  constructor(services: Record<string, FakeService>) {
    for (const [name, service] of Object.entries(services)) this.services.set(name, structuredClone(service));
  }

  readonly run = async (cmd: Command): Promise<CommandResult> => {
    this.commands.push(cmd);
    if (cmd.file !== NETWORKSETUP) return { code: null, stdout: '', stderr: `${cmd.file}: not found` };
    const [verb, name, ...rest] = cmd.args;
    if (verb === '-listallnetworkservices') {
      const names = [...this.services].map(([n, s]) => (s.enabled ? n : `*${n}`));
      return ok(['An asterisk (*) denotes that a network service is disabled.', ...names, ''].join('\n'));
    }
    const service = name === undefined ? undefined : this.services.get(name);
    if (!service) return fail(`${name} is not a recognized network service.\n** Error: The parameters were not valid.\n`);
    let match: RegExpExecArray | null;
    if ((match = /^-get(web|secureweb|socksfirewall)proxy$/.exec(verb!))) {
      const p = service[match[1] as 'web'];
      return ok(`Enabled: ${p.enabled ? 'Yes' : 'No'}\nServer: ${p.server}\nPort: ${p.port}\nAuthenticated Proxy Enabled: ${p.authenticated ? 1 : 0}\n`);
    }
    if ((match = /^-set(web|secureweb|socksfirewall)proxy$/.exec(verb!))) {
      const [server, port] = rest;
      if (!server || !/^\d+$/.test(port ?? '')) return fail('** Error: The parameters were not valid.\n');
      service[match[1] as 'web'] = { enabled: true, server, port: Number(port), authenticated: false };
      return ok();
    }
    if ((match = /^-set(web|secureweb|socksfirewall)proxystate$/.exec(verb!))) {
      if (rest[0] !== 'on' && rest[0] !== 'off') return fail('** Error: The parameters were not valid.\n');
      service[match[1] as 'web'].enabled = rest[0] === 'on';
      return ok();
    }
    if (verb === '-getproxybypassdomains') {
      return ok(service.bypass.length === 0 ? `There aren't any bypass domains set on ${name}.\n` : `${service.bypass.join('\n')}\n`);
    }
    if (verb === '-setproxybypassdomains') {
      if (rest.length === 0) return fail('** Error: The parameters were not valid.\n');
      service.bypass = rest.length === 1 && rest[0] === 'Empty' ? [] : [...rest];
      return ok();
    }
    return fail(`** Error: unknown command ${verb}\n`);
  };
}
