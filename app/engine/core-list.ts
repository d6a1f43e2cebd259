/**
 * The cores found and what each carries, as `cli cores` prints it and the Settings panel shows it:
 * a pure function of the survey (core-survey.ts) and the user's servers. A server is carried by
 * the first core in use that can run it — the main core, then each carrier in turn — and a server
 * none can run keeps every core's reason, so the user reads why, core by core.
 */
import type { CoreAbilities, CoreEntry, CoreList, CoreRole, ServerCarrier } from '../../shared/domain/cores';
import type { Server } from '../../shared/domain/server';
import { type CoreProfile, unsupportedReason } from '../core';
import type { CoreSurvey, SurveyedCore } from './core-survey';

/** The first of `cores` that can run the server (and its upstream), or null, with the reason of each core before it. */
export function carrierOf(server: Server, via: Server | undefined, cores: readonly CoreProfile[]): { index: number | null; reasons: string[] } {
  const reasons: string[] = [];
  for (const [index, core] of cores.entries()) {
    const reason = unsupportedReason(server, core, via);
    if (!reason) return { index, reasons };
    reasons.push(reason);
  }
  return { index: null, reasons };
}

export function coreListOf(survey: CoreSurvey, servers: readonly Server[]): { list: CoreList; carriers: ServerCarrier[] } {
  const inUse = survey.main ? [survey.main, ...survey.carriers] : [];
  const profiles = inUse.map((core) => core.profile as CoreProfile);
  const byId = new Map(servers.map((server) => [server.id, server]));
  const counts = inUse.map(() => 0);
  const carriers: ServerCarrier[] = servers.map((server) => {
    const { index, reasons } = carrierOf(server, server.via ? byId.get(server.via) : undefined, profiles);
    if (index !== null) counts[index] = (counts[index] ?? 0) + 1;
    return {
      serverId: server.id,
      name: server.name,
      protocol: server.protocol,
      core: index === null ? null : (inUse[index]!.name as ServerCarrier['core']),
      reasons: Object.fromEntries(reasons.map((reason, i) => [inUse[i]!.name, reason])),
    };
  });
  const entry = (core: SurveyedCore, role: CoreRole, carries: number): CoreEntry => ({
    name: core.name,
    version: core.profile?.version ?? null,
    path: core.path,
    source: core.source,
    role,
    abilities: core.profile ? abilitiesOf(core.profile) : null,
    problem: core.problem,
    carries,
  });
  const cores = [
    ...inUse.map((core, i) => entry(core, i === 0 ? 'main' : 'carrier', counts[i] ?? 0)),
    ...survey.available.map((core) => entry(core, 'available', 0)),
  ];
  return {
    list: {
      main: (survey.main?.name as CoreList['main']) ?? null,
      problem: survey.mainProblem,
      cores,
      serverCount: servers.length,
      uncarried: carriers.filter((c) => c.core === null).length,
    },
    carriers,
  };
}

const sorted = (items: Iterable<string>) => [...items].sort();

function abilitiesOf(profile: CoreProfile): CoreAbilities {
  const caps = profile.capabilities;
  return {
    protocols: sorted(caps.protocols),
    transports: sorted(caps.networks),
    securities: sorted(caps.securities),
    features: sorted(caps.features),
    shadowsocksMethods: sorted(caps.shadowsocksMethods),
    confirmed: [...profile.verified.confirmed],
    refuted: [...profile.verified.refuted],
  };
}
