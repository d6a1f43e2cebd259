/**
 * Views for `plan` table tests, written the short way: servers by exit network, results from here
 * as `'✓400 ✗40 ✗5'` (answered 400 s ago, failed 40 s and 5 s ago), votes as `'B✓3 C✗3'`
 * (B reached the target 3 s ago, C did not). Built with the real `buildView`, at `NOW`, with the
 * rules of the default 5 min monitor interval.
 */
import type { ServerId } from '../../../shared/domain/server';
import type { Measurement } from '../../../shared/domain/measurement';
import { fakeServer } from '../../monitor/testing/harness';
import { exitNetworkOf } from '../policy/exit-network';
import type { VantageObservation } from '../policy/observation';
import { plan, type Plan, type PlanView } from '../policy/plan';
import { NOTHING_REPORTED, type Reported } from '../policy/report';
import { reachabilityRules } from '../policy/rules';
import type { EpisodeSpend } from '../policy/spend';
import { buildView } from '../policy/view';

export const S = 1000;
export const MIN = 60 * S;
export const NOW = 50_000_000;
export const RULES = reachabilityRules({ intervalMs: 5 * MIN, urlTestTimeoutMs: 5 * S });

export interface ViewSpec {
  /** Server id → exit ASN, in list order (default A…D in AS1…AS4). */
  servers?: Record<ServerId, string>;
  /** Results from here; a server not named answered 10 s ago, in 100 ms × its position. */
  here?: Record<ServerId, string>;
  /** Vantage votes by target. */
  votes?: Record<ServerId, string>;
  trusted?: ServerId;
  networkLost?: string;
  /** Targets the core cannot chain, with why. */
  unchainable?: Record<ServerId, string>;
  idle?: boolean;
  /** Seconds since each target's last round started. */
  lastRoundAgo?: Record<ServerId, number>;
  roundsInFlight?: ServerId[];
  confirmsInFlight?: ServerId[];
  /** Seconds since each vantage probe of the window started. */
  probesAgo?: number[];
  episodes?: Record<ServerId, Omit<EpisodeSpend, 'firstFailureAt'> & { firstFailureAgo: number }>;
  reported?: Reported;
}

const FOUR: Record<ServerId, string> = { A: 'AS1', B: 'AS2', C: 'AS3', D: 'AS4' };
const ago = (seconds: number) => NOW - seconds * S;

export function viewOf(spec: ViewSpec = {}): PlanView {
  const asns: Record<ServerId, string> = spec.servers ?? FOUR;
  const ids = Object.keys(asns);
  const servers = ids.map((id) => fakeServer(id, { name: id }));
  const recent = (id: ServerId, position: number): Measurement[] =>
    (spec.here?.[id] ?? '✓10').split(' ').map((token) => ({ at: ago(Number(token.slice(1))), method: 'url', delayMs: token.startsWith('✓') ? 100 * (position + 1) : null }));
  const networkOf = (id: ServerId) => exitNetworkOf({ ip: `203.0.${ids.indexOf(id) + 1}.10`, asn: asns[id], org: `${asns[id]} network`, source: 'ipapi.co' }, `${id}.example.test`);
  const observations = new Map<ServerId, VantageObservation[]>(
    Object.entries(spec.votes ?? {}).map(([target, votes]) => [
      target,
      votes.split(' ').map((vote) => {
        const [vantage = '', secondsAgo = ''] = vote.split(/[✓✗]/);
        return { vantageId: vantage, vantageName: vantage, network: networkOf(vantage), reached: vote.includes('✓'), at: ago(Number(secondsAgo)) };
      }),
    ]),
  );
  const view = buildView(
    {
      servers,
      status: (id) => ({ recent: recent(id, ids.indexOf(id)), ipInfo: { ip: `203.0.${ids.indexOf(id) + 1}.10`, asn: asns[id], org: `${asns[id]} network`, source: 'ipapi.co', fromCache: false, at: ago(60) } }),
      confirmations: () => [],
      observations,
      networkLost: spec.networkLost ?? null,
      unsupported: (_vantage, target) => spec.unchainable?.[target.id] ?? null,
      trustedCheckerId: spec.trusted ?? null,
      rules: RULES,
    },
    NOW,
  );
  return {
    ...view,
    active: !spec.idle,
    probing: {
      lastRoundAt: new Map(Object.entries(spec.lastRoundAgo ?? {}).map(([id, s]) => [id, ago(s)])),
      roundsInFlight: new Set(spec.roundsInFlight),
      confirmsInFlight: new Set(spec.confirmsInFlight),
    },
    spent: {
      probeTimes: (spec.probesAgo ?? []).map(ago),
      episodes: new Map(Object.entries(spec.episodes ?? {}).map(([id, { firstFailureAgo, ...spend }]) => [id, { ...spend, firstFailureAt: ago(firstFailureAgo) }])),
    },
    reported: spec.reported ?? NOTHING_REPORTED,
  };
}

export function planned(spec: ViewSpec = {}): Plan {
  return plan(viewOf(spec), NOW);
}

/** A plan the short way: `confirm A`, `round A via B,C,D`; wakeAt in ms after NOW (null: never). */
export function brief(p: Plan): { probes: string[]; wakeAt: number | null; logs: string[] } {
  return {
    probes: p.probes.map((probe) => (probe.kind === 'confirm' ? `confirm ${probe.serverId}` : `round ${probe.targetId} via ${probe.vantages.map((v) => v.id).join(',')}`)),
    wakeAt: Number.isFinite(p.wakeAt) ? p.wakeAt - NOW : null,
    logs: p.logs,
  };
}
