/** The control API's request bodies, validated once at the boundary. */
import { z } from 'zod';
import { issueLines } from '../../shared/zod-issues';
import { FAULT_MODES } from './relay-policy';
import { SUBSCRIPTION_MODES } from './subscription-server';

const ms = (max: number) => z.number().int().min(0).max(max);

export const faultSchema = z
  .object({
    fault: z.enum(FAULT_MODES).optional(),
    latencyMs: ms(60_000).optional(),
    jitterMs: ms(60_000).optional(),
    periodMs: z.number().int().min(50).max(3_600_000).optional(),
    bandwidthKbps: z.number().int().min(1).max(10_000_000).optional(),
    afterBytes: z.number().int().min(0).max(1024 ** 3).optional(),
    bytesPerSecond: z.number().int().min(1).max(1024 ** 3).optional(),
  })
  .strict();

export const networkSchema = z.object({ state: z.enum(['online', 'offline']) }).strict();

export const subscriptionChangeSchema = z.union([
  z.object({ servers: z.array(z.string().min(1)).max(10_000) }).strict(),
  z.object({ mode: z.enum(SUBSCRIPTION_MODES) }).strict(),
]);

export const ipInfoSchema = z.object({ mode: z.enum(['ok', '429', 'timeout']) }).strict();

/** A readable one-line account of what is wrong with a body. */
export function describeIssues(error: z.ZodError): string {
  return issueLines(error, { whole: 'body' }).join('; ');
}
