import fc from 'fast-check';
import { parseScenario } from '../../app/auto/sim/scenario';
import { parseIpInfoAnswer } from '../../app/monitor/ipinfo/parsers';
import { parseSubscription } from '../../app/subscriptions/parse';
import { checkCoreLine, checkTrackedSession } from './checks/core-log';
import { HostChecker } from './checks/host';
import { checkIpcRequest, checkWireFrame } from './checks/ipc';
import { checkIpInfo } from './checks/ipinfo';
import { checkScenario } from './checks/scenario';
import { checkSettingsPatchSchema, SettingsStoreChecker } from './checks/settings';
import { checkParseResult, type ExpectedServer } from './checks/subscription';
import { Violation, show } from './checks/violation';
import {
  coreLogLine,
  coreLogSession,
  ipcRequest,
  ipInfoInput,
  mutated,
  noiseBody,
  protocolOf,
  scenarioText,
  settingsPatch,
  textBody,
  validLinkArb,
  wireFrame,
} from './generators';
import { BUDGET_MS, measure } from './timing';

/**
 * The properties every parser must keep, as fuzz targets: an input generator, the call under
 * test (timed) and the check of its result (not timed). The same targets run in the test subset
 * (`fuzzTarget` with a modest number of runs) and in the benchmark (100,000 inputs each).
 */
export interface FuzzSession<T, O> {
  /** The parser call, timed; it may throw only where its contract says it throws. */
  run(input: T): O | Promise<O>;
  /** Throws a Violation when the output breaks a property. */
  verify(input: T, output: O): void | Promise<void>;
  close(): Promise<void>;
}

export interface FuzzTarget<T = unknown, O = unknown> {
  name: string;
  description: string;
  arbitrary: fc.Arbitrary<T>;
  open(): Promise<FuzzSession<T, O>>;
}

function pure<T, O>(name: string, description: string, arbitrary: fc.Arbitrary<T>, run: (input: T) => O, verify: (input: T, output: O) => void): FuzzTarget<T, O> {
  return { name, description, arbitrary, open: async () => ({ run, verify, close: async () => undefined }) };
}

/** One share link, valid (it must parse to exactly its server) or mutated. */
export interface LinkInput {
  body: string;
  expected: ExpectedServer | null;
}

const linkInput: fc.Arbitrary<LinkInput> = fc.oneof(
  validLinkArb.map(({ spec, link }) => ({ body: link, expected: { protocol: protocolOf(spec.scheme), address: spec.host, port: spec.port } })),
  mutated(validLinkArb.map((l) => l.link), 4).map((body) => ({ body, expected: null })),
);

export const TARGETS: FuzzTarget<never, never>[] = [
  pure('share-links', 'one share link of each scheme and shape, valid (must parse to its server) or mutated', linkInput, (i) => parseSubscription(i.body), (i, r) => checkParseResult(r, i.expected ?? undefined)),
  pure('subscription-bodies', 'link lists, base64, Xray / sing-box JSON, Clash YAML (anchors, alias bombs), deep nesting; valid and broken', textBody, (b) => parseSubscription(b), (_b, r) => checkParseResult(r)),
  pure('subscription-noise', 'arbitrary strings and bytes, truncated UTF-8, junk before a list', noiseBody, (b) => parseSubscription(b), (_b, r) => checkParseResult(r)),
  pure('ipinfo', 'answers of the 8 IP-info formats and the Cloudflare trace, right and wrong shapes, any status', ipInfoInput, (i) => parseIpInfoAnswer(i.source, i.status, i.body), checkIpInfo),
  pure('core-log-lines', "a core's log lines (v2ray 4 / v5 / Xray spellings, error chains, long lines), mutated", coreLogLine, (line) => checkCoreLine(line), () => undefined),
  pure('core-log-tracker', 'streams of core lines through the outbound-failure tracker', coreLogSession, (lines) => checkTrackedSession(lines), () => undefined),
  pure('scenario', 'scenario files: valid, wrong field types, broken JSON, unrelated JSON', scenarioText, (t) => parseScenario(t), (_t, r) => checkScenario(r)),
  pure('settings-schema', 'settings patches against the patch schema', settingsPatch, (p) => checkSettingsPatchSchema(p), () => undefined),
  {
    name: 'settings-store',
    description: "settings patches through the store's update path on a real file",
    arbitrary: settingsPatch,
    open: async () => {
      const checker = await SettingsStoreChecker.open();
      return { run: (p: unknown) => checker.apply(p), verify: (_p: unknown, o) => checker.verify(o), close: () => checker.close() };
    },
  },
  pure('ipc-requests', "every channel's parseRequest with right, wrong and oversized payloads, and non-channels", ipcRequest, (r) => checkIpcRequest(r), () => undefined),
  pure('wire-frames', 'WebSocket frames against the framing schema and the contract', wireFrame, (f) => checkWireFrame(f), () => undefined),
  {
    name: 'headless-host',
    description: 'WebSocket frames sent to a real headless host on loopback',
    arbitrary: wireFrame,
    open: async () => {
      const checker = await HostChecker.open();
      return { run: (f: string) => checker.apply(f), verify: (f: string, o) => checker.verify(f, o), close: () => checker.close() };
    },
  },
] as FuzzTarget<never, never>[];

export function targetNamed(name: string): FuzzTarget<never, never> {
  const target = TARGETS.find((t) => t.name === name);
  if (!target) throw new Error(`no fuzz target "${name}" (have: ${TARGETS.map((t) => t.name).join(', ')})`);
  return target;
}

/**
 * One input through a session: the call timed, its output checked, the budget enforced on the
 * fastest of up to three tries. Throws a Violation for any broken property (including an
 * exception the parser's contract does not allow).
 */
export async function runInput<T, O>(session: FuzzSession<T, O>, input: T, budgetMs = BUDGET_MS): Promise<{ ms: number }> {
  let measured;
  try {
    measured = await measure(() => session.run(input), budgetMs);
  } catch (error) {
    if (error instanceof Violation) throw error;
    throw new Violation(`threw ${error instanceof Error ? `${error.name}: ${error.message}` : show(error)}`);
  }
  await session.verify(input, measured.output);
  if (measured.slow) throw new Violation(`took ${measured.bestMs.toFixed(1)} ms (${measured.bestCpuMs.toFixed(1)} ms of CPU) at best of 3 tries; the budget is ${budgetMs} ms`);
  return { ms: measured.ms };
}
