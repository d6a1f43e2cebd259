/**
 * The privileged helper's whole interface: one JSON request per line on its standard input, one
 * JSON reply per line on its standard output. The helper runs nothing but the commands the
 * capture-plan builders make from a request it validated, so a compromised app can at most turn
 * capture on or off, never run a command of its choosing as root. Per-app choice adds one power:
 * the processes a list names are moved into the helper's own cgroup (and back), which changes
 * only which way their traffic goes.
 */
import { z } from 'zod';
import { appEntryOf } from '../../../shared/per-app';

export const capturePlanSchema = z
  .object({
    method: z.enum(['tproxy', 'redirect']),
    port: z.number().int().min(1).max(65535),
    coreMark: z.number().int().min(1).max(0xffffffff),
    bypassLan: z.boolean(),
    /**
     * Per-app choice (per-app/policy/nft-rules.ts): uids, and programs by path or name, which the
     * helper moves into the list's own cgroup (per-app/helper-side.ts); nothing else.
     */
    perApp: z
      .object({
        mode: z.enum(['bypass', 'only']),
        uids: z.array(z.number().int().min(0).max(0xfffffffe)).max(500),
        programs: z
          .array(
            z
              .string()
              .max(1024)
              .refine((text) => ['path', 'name'].includes(appEntryOf(text)?.kind ?? ''), 'a program is an absolute path or a program name'),
          )
          .max(500),
      })
      .strict()
      .nullable()
      .optional(),
    /** The current server's IPv6: captured, or refused at once (absent: refused). */
    ipv6: z.enum(['capture', 'block']).optional(),
  })
  .strict();

/** The kill switch's allow list (kill-switch/policy/kill-switch-rules.ts checks every address again). */
export const killSwitchPlanSchema = z
  .object({
    servers: z.array(z.string().max(64)).max(4096),
    allowLan: z.boolean(),
  })
  .strict();

export const helperRequestSchema = z.discriminatedUnion('op', [
  /** Can this kernel and nft do TPROXY? A check-only parse of the TPROXY ruleset, nothing changes. */
  z.object({ op: z.literal('probe'), plan: capturePlanSchema }).strict(),
  /** Capture on (leftovers removed first). */
  z.object({ op: z.literal('apply'), plan: capturePlanSchema }).strict(),
  /** Only the IPv6 verdict of the capture in place changes (an Auto switch to a server that differs). */
  z.object({ op: z.literal('ipv6'), ipv6: z.enum(['capture', 'block']) }).strict(),
  /** Capture off; the session stays for a later apply (the core is restarting). */
  z.object({ op: z.literal('lift') }).strict(),
  /** Capture off and the helper exits. */
  z.object({ op: z.literal('end') }).strict(),
  /** Kill switch on, or its allow list replaced (atomically). It outlives the session by design. */
  z.object({ op: z.literal('kill-switch-on'), plan: killSwitchPlanSchema }).strict(),
  /** Kill switch off: only the user's own choice sends this. */
  z.object({ op: z.literal('kill-switch-off') }).strict(),
]);
export type HelperRequest = z.infer<typeof helperRequestSchema>;

/** How an apply matched the per-app list's programs here, and those it could not (with why). */
const perAppReplySchema = z
  .object({
    matched: z.string().max(4000),
    skipped: z.array(z.object({ entry: z.string().max(1024), reason: z.string().max(1000) }).strict()).max(500),
  })
  .strict();

export const helperReplySchema = z.union([
  z.object({ ok: z.literal(true), detail: z.string().max(2000), perApp: perAppReplySchema.optional() }).strict(),
  z.object({ ok: z.literal(false), error: z.string().max(2000) }).strict(),
]);
export type HelperReply = z.infer<typeof helperReplySchema>;

/** The first line the helper writes once it runs (with the rights it was given). */
export const HELPER_READY = 'steadfast-capture-helper ready';
