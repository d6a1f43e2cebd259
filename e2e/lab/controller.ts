/**
 * The lab's control operations, shared by the in-process API and the HTTP control API: every
 * input is validated here (zod), so both paths reject the same bad input with the same message.
 */
import type { z } from 'zod';
import type { IpInfoService } from '../../shared/settings';
import { describeIssues, faultSchema, ipInfoSchema, networkSchema, subscriptionChangeSchema } from './control-schema';
import { LAB_IP_INFO_SERVICES } from './ipinfo-formats';
import type { LabNetwork } from './network';
import type { FaultRelay } from './fault-relay';
import type { SubscriptionServer } from './subscription-server';
import type { IpInfoMode, Target } from './target';
import type { LabCounters, LabServerProtocol, LabState, ServerState } from './types';
import type { ServerSpec } from './world';

export class LabError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (!result.success) throw new LabError(400, describeIssues(result.error));
  return result.data;
}

/** What the control operations read of a server, whichever core hosts it. */
export type ControlledSpec = Pick<ServerSpec, 'id' | 'subscription' | 'name' | 'exitIp' | 'place'> & { protocol: LabServerProtocol };

export interface RunningServer {
  spec: ControlledSpec;
  relay: FaultRelay;
}

export class LabController {
  constructor(
    private readonly servers: Map<string, RunningServer>,
    private readonly target: Target,
    private readonly subscriptions: SubscriptionServer,
    private readonly network: LabNetwork,
  ) {}

  private server(id: string): RunningServer {
    const server = this.servers.get(id);
    if (!server) throw new LabError(404, `unknown server "${id}"`);
    return server;
  }

  serverState(id: string): ServerState {
    const { spec, relay } = this.server(id);
    return {
      id: spec.id,
      subscription: spec.subscription,
      protocol: spec.protocol,
      name: spec.name,
      relay: relay.address,
      exitIp: spec.exitIp,
      country: spec.place.code,
      ...relay.fault,
    };
  }

  state(): LabState {
    return {
      network: this.network.current,
      servers: [...this.servers.keys()].map((id) => this.serverState(id)),
      subscriptions: this.subscriptions.view(),
      ipinfo: this.target.ipInfoModes(),
    };
  }

  counters(): LabCounters {
    const t = this.target.counters;
    return {
      servers: Object.fromEntries(
        [...this.servers.values()].map(({ spec, relay }) => {
          const { datagramsByPort, ...counts } = relay.counters;
          return [spec.id, datagramsByPort ? { ...counts, datagramsByPort: { ...datagramsByPort } } : counts];
        }),
      ),
      ipinfo: { ...t.ipinfo },
      target: { connections: this.target.connections, generate204: t.generate204, downloads: t.downloads, downloadBytes: t.downloadBytes },
      subscriptions: this.subscriptions.requests(),
    };
  }

  async setFault(id: string, body: unknown): Promise<ServerState> {
    const server = this.server(id);
    await server.relay.setFault(parse(faultSchema, body));
    return this.serverState(id);
  }

  setNetwork(body: unknown): void {
    this.network.set(parse(networkSchema, body).state);
  }

  setSubscription(id: string, body: unknown): ReturnType<SubscriptionServer['view']>[number] {
    if (!this.subscriptions.has(id)) throw new LabError(404, `unknown subscription "${id}"`);
    const change = parse(subscriptionChangeSchema, body);
    if ('servers' in change) {
      const unknown = change.servers.filter((s) => !this.servers.has(s));
      if (unknown.length > 0) throw new LabError(400, `servers: unknown server ids ${unknown.join(', ')}`);
      this.subscriptions.setServers(id, change.servers);
    } else {
      this.subscriptions.setMode(id, change.mode);
    }
    return this.subscriptions.view().find((s) => s.id === id) as ReturnType<SubscriptionServer['view']>[number];
  }

  setIpInfo(service: string, body: unknown): IpInfoMode {
    if (!(LAB_IP_INFO_SERVICES as readonly string[]).includes(service)) {
      throw new LabError(404, `unknown IP-info service "${service}"; one of ${LAB_IP_INFO_SERVICES.join(', ')}`);
    }
    const { mode } = parse(ipInfoSchema, body);
    this.target.setIpInfo(service as IpInfoService, mode);
    return mode;
  }
}
