import { z } from 'zod';
import { NETWORKS, SECURITIES } from '../../shared/domain/server';
import { SUBSCRIPTION_ERROR_KINDS, type Subscription } from '../../shared/domain/subscription';

/**
 * The shape of `<dataDir>/subscriptions.json`. Each server is checked for what its protocol
 * cannot do without (a vmess server without a UUID is not a server); optional fields pass
 * through as written, since the app wrote them itself.
 */
const transport = z.looseObject({ network: z.enum(NETWORKS) });
const security = z.looseObject({ type: z.enum(SECURITIES) });
const base = {
  id: z.string().min(1),
  subscriptionId: z.string().min(1),
  name: z.string(),
  address: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  transport,
  security,
};

const server = z.discriminatedUnion('protocol', [
  z.looseObject({ ...base, protocol: z.literal('vmess'), uuid: z.string().min(1), alterId: z.number().int().min(0), cipher: z.string() }),
  z.looseObject({ ...base, protocol: z.literal('vless'), uuid: z.string().min(1), encryption: z.string() }),
  z.looseObject({ ...base, protocol: z.literal('trojan'), password: z.string() }),
  z.looseObject({ ...base, protocol: z.literal('shadowsocks'), method: z.string().min(1), password: z.string() }),
  z.looseObject({ ...base, protocol: z.literal('hysteria2'), password: z.string() }),
  z.looseObject({ ...base, protocol: z.literal('tuic'), uuid: z.string().min(1), password: z.string() }),
  z.looseObject({
    ...base,
    protocol: z.literal('wireguard'),
    privateKey: z.string().min(1),
    publicKey: z.string().min(1),
    localAddresses: z.array(z.string()),
  }),
  z.looseObject({ ...base, protocol: z.literal('socks') }),
  z.looseObject({ ...base, protocol: z.literal('http') }),
]);

const count = z.number().int().min(0);
const subscription = z.object({
  id: z.string().min(1),
  url: z.string().optional(),
  userAgent: z.string().max(300).optional(),
  name: z.string(),
  servers: z.array(server),
  usage: z.object({ upload: count.optional(), download: count.optional(), total: count.optional(), expire: count.optional() }).nullable(),
  rejected: z.array(z.object({ line: z.number().int(), reason: z.string(), excerpt: z.string() })),
  updatedAt: z.number().nullable(),
  lastAttemptAt: z.number().nullable().optional(),
  updateIntervalHours: z.number().positive().nullable().optional(),
  announce: z.string().max(2000).nullable().optional().catch(undefined),
  lastError: z.string().nullable(),
  // An unknown kind (a newer version's) is dropped, not a reason to set the whole file aside.
  lastErrorKind: z.enum(SUBSCRIPTION_ERROR_KINDS).nullable().optional().catch(undefined),
  pendingEmpty: z.boolean(),
});

export interface SubscriptionsDocument {
  version: 1;
  /** In the user's order: the order defines "neighbour" for Auto. */
  subscriptions: Subscription[];
}

export const subscriptionsDocumentSchema = z.object({
  version: z.literal(1),
  subscriptions: z.array(subscription),
}) as unknown as z.ZodType<SubscriptionsDocument>;
