/**
 * A small client for the core's gRPC stats API (QueryStats). The v2ray family names the service
 * by core: `v2ray.core.app.stats.command` for v2ray 4 and 5, `xray.app.stats.command` for Xray.
 * The few messages are declared inline so no .proto file has to ship with the app.
 */
import * as grpc from '@grpc/grpc-js';
import { fromJSON } from '@grpc/proto-loader';

export type StatsFamily = 'v2ray' | 'xray';

export const STATS_PACKAGES: Record<StatsFamily, string> = {
  v2ray: 'v2ray.core.app.stats.command',
  xray: 'xray.app.stats.command',
};

/** Counter name → value, e.g. `outbound>>>proxy>>>traffic>>>downlink` → 5242880. */
export type Counters = Map<string, number>;

interface RawStat {
  name?: string;
  value?: string | number;
}

type QueryStats = (
  request: { pattern: string; reset: boolean },
  options: { deadline: Date },
  callback: (error: grpc.ServiceError | null, response?: { stat?: RawStat[] }) => void,
) => void;

function nest(dotted: string, leaf: Record<string, unknown>): Record<string, unknown> {
  return dotted
    .split('.')
    .reverse()
    .reduce<Record<string, unknown>>((inner, name) => ({ nested: { [name]: inner } }), leaf);
}

function serviceConstructor(family: StatsFamily): grpc.ServiceClientConstructor {
  const pkg = STATS_PACKAGES[family];
  const definition = fromJSON(
    nest(pkg, {
      nested: {
        QueryStatsRequest: { fields: { pattern: { type: 'string', id: 1 }, reset: { type: 'bool', id: 2 } } },
        Stat: { fields: { name: { type: 'string', id: 1 }, value: { type: 'int64', id: 2 } } },
        QueryStatsResponse: { fields: { stat: { rule: 'repeated', type: 'Stat', id: 1 } } },
        StatsService: {
          methods: { QueryStats: { requestType: 'QueryStatsRequest', responseType: 'QueryStatsResponse' } },
        },
      },
    }),
    { longs: String, defaults: true },
  );
  const loaded = grpc.loadPackageDefinition(definition) as unknown as Record<string, unknown>;
  const service = pkg.split('.').reduce<unknown>((node, name) => (node as Record<string, unknown>)[name], loaded);
  return (service as Record<string, grpc.ServiceClientConstructor>).StatsService as grpc.ServiceClientConstructor;
}

export class StatsClient {
  private readonly client: grpc.Client;

  /** `address` is the core's API inbound, e.g. "127.0.0.1:40123". */
  constructor(address: string, family: StatsFamily = 'v2ray') {
    const Service = serviceConstructor(family);
    this.client = new Service(address, grpc.credentials.createInsecure());
  }

  /** Counters whose name contains `pattern` (the core's substring match). */
  query(pattern: string, timeoutMs = 1000, reset = false): Promise<Counters> {
    const call = (this.client as unknown as { QueryStats: QueryStats }).QueryStats.bind(this.client);
    return new Promise((resolve, reject) => {
      call({ pattern, reset }, { deadline: new Date(Date.now() + timeoutMs) }, (error, response) => {
        if (error) return reject(new Error(`stats query failed: ${error.details || error.message}`));
        const counters: Counters = new Map();
        for (const stat of response?.stat ?? []) {
          if (stat.name) counters.set(stat.name, Number(stat.value ?? 0));
        }
        resolve(counters);
      });
    });
  }

  close(): void {
    this.client.close();
  }
}
