/**
 * A value the settings refuse (or text the import box cannot read), as a topic and its parameters rather than a sentence: the engine
 * sends it beside its English (what the log and the CLI say), and the window words it in the
 * user's language (renderer/src/i18n: `validation.TOPIC`). The schemas attach the topic to their
 * own issues (`issueOf`); zod's built-in checks (a number too large, an unknown field) map to
 * topics of their own (`validationOf`). An issue with no topic is `invalid`, worded by its English.
 */

export const VALIDATION_TOPICS = [
  // Names and addresses in routing rules, hosts and DNS (shared/routing.ts).
  'entry-empty',
  'entry-too-long',
  'geosite-list',
  'nothing-after-prefix',
  'regexp-unsupported',
  'regexp-invalid',
  'keyword-characters',
  'unknown-prefix',
  'not-host-name',
  'not-ip-or-cidr',
  'prefix-length',
  'not-port',
  'port-outside-range',
  'port-range-backwards',
  'rule-matches-nothing',
  'unknown-outbound',
  'unknown-group',
  'too-many-entries',
  'not-ip-or-host',
  'not-resolver',
  'resolver-port',
  'not-doh-url',
  'not-doh-or-resolver',
  // Rule sets, chains, groups and sharing (shared/rule-sets.ts, settings.ts, sharing.ts).
  'rule-set-needs-list',
  'rule-set-one-list',
  'rule-set-id-twice',
  'chain-through-itself',
  'group-name-twice',
  'sharing-address-needed',
  // What the import box or an import link cannot read (app/imports/deep-link.ts).
  'import-unknown-link',
  'import-link-too-long',
  'import-bad-escapes',
  'import-link-without-url',
  'import-address-too-long',
  'import-neither-address-nor-link',
  'import-not-http',
  'import-address-with-password',
  'import-empty',
  'import-nothing-recognised',
  'import-no-usable-server',
  // zod's own checks, for any field.
  'number-too-small',
  'number-too-big',
  'text-too-short',
  'text-too-long',
  'list-too-short',
  'list-too-long',
  'wrong-type',
  'not-a-choice',
  'unknown-field',
  'not-a-url',
  'invalid',
] as const;

export type ValidationTopic = (typeof VALIDATION_TOPICS)[number];
export type ValidationParams = Readonly<Record<string, string | number>>;

/** One refused value: what is wrong (topic, parameters), where (the settings path), and the English. */
export interface ValidationProblem {
  topic: ValidationTopic;
  params: ValidationParams;
  path: readonly (string | number)[];
  /** The engine's English sentence for it, for logs and the CLI. */
  english: string;
}

const KNOWN: ReadonlySet<string> = new Set(VALIDATION_TOPICS);

export function isValidationTopic(value: unknown): value is ValidationTopic {
  return typeof value === 'string' && KNOWN.has(value);
}

/** A schema's own finding: its topic and parameters, and the English that stays its message. */
export interface Finding {
  topic: ValidationTopic;
  params: ValidationParams;
  text: string;
}

export const finding = (topic: ValidationTopic, params: ValidationParams, text: string): Finding => ({ topic, params, text });

/** A zod custom issue carrying `found` (for `ctx.addIssue`). */
export function issueOf(found: Finding, path?: (string | number)[]) {
  return { code: 'custom' as const, message: found.text, params: { topic: found.topic, ...found.params }, ...(path ? { path } : {}) };
}

/** The parts of a zod issue this module reads (zod 4's `$ZodIssue`, loosely). */
export interface IssueLike {
  code: string;
  path: readonly PropertyKey[];
  message: string;
  params?: Record<string, unknown>;
  origin?: string;
  minimum?: unknown;
  maximum?: unknown;
  expected?: unknown;
  values?: readonly unknown[];
  keys?: readonly string[];
  format?: string;
}

const plain = (value: unknown): string | number => (typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : String(value));

function topicOf(issue: IssueLike): { topic: ValidationTopic; params: ValidationParams } {
  if (issue.code === 'custom' && issue.params && isValidationTopic(issue.params.topic)) {
    const { topic, ...rest } = issue.params;
    return { topic, params: Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, plain(v)])) };
  }
  const sized = (small: boolean) => {
    const limit = plain(small ? issue.minimum : issue.maximum);
    if (issue.origin === 'string') return { topic: small ? 'text-too-short' : 'text-too-long', params: { limit } } as const;
    if (issue.origin === 'array' || issue.origin === 'set') return { topic: small ? 'list-too-short' : 'list-too-long', params: { limit } } as const;
    return { topic: small ? 'number-too-small' : 'number-too-big', params: { limit } } as const;
  };
  switch (issue.code) {
    case 'too_small':
      return sized(true);
    case 'too_big':
      return sized(false);
    case 'invalid_type':
      return { topic: 'wrong-type', params: { expected: plain(issue.expected) } };
    case 'invalid_value':
      return { topic: 'not-a-choice', params: { options: (issue.values ?? []).map(String).join(', ') } };
    case 'unrecognized_keys':
      return { topic: 'unknown-field', params: { keys: (issue.keys ?? []).join(', ') } };
    case 'invalid_format':
      if (issue.format === 'url') return { topic: 'not-a-url', params: {} };
  }
  return { topic: 'invalid', params: { detail: issue.message } };
}

/** The problem a zod issue describes, with `english` as the engine says it. */
export function validationOf(issue: IssueLike, english: string): ValidationProblem {
  const { topic, params } = topicOf(issue);
  const path = issue.path.map((key) => (typeof key === 'number' ? key : String(key)));
  return { topic, params, path, english };
}

/** A problem as it arrived from a peer: kept only when its shape is one this build can word. */
export function validationFromWire(value: unknown): ValidationProblem | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { topic, params, path, english } = value as Record<string, unknown>;
  if (!isValidationTopic(topic) || typeof english !== 'string' || !Array.isArray(path) || params === null || typeof params !== 'object') return undefined;
  if (!path.every((key) => typeof key === 'string' || typeof key === 'number')) return undefined;
  const cleanParams = Object.fromEntries(Object.entries(params as Record<string, unknown>).filter(([, v]) => typeof v === 'string' || typeof v === 'number')) as ValidationParams;
  return { topic, params: cleanParams, path: path as (string | number)[], english };
}
