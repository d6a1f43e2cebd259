/**
 * Every core on this machine, found and asked what it can run, in the roles the engine gives them:
 * the main core as `findCore` (core-pieces.ts) chooses it — the setting, else Xray, else v2ray —,
 * sing-box beside it as a carrier, and the rest available to be chosen. What `cli cores` prints
 * and the Settings panel shows (core-list.ts turns it into that list).
 */
import { basename } from 'node:path';
import type { CoreWhere } from '../../shared/domain/cores';
import { type CoreProfile, detectCore, locateCore, locateCores } from '../core';
import type { CoreWanted } from './core-pieces';

export interface SurveyedCore {
  /** The core's family once identified, else its file name. */
  name: string;
  path: string;
  source: CoreWhere;
  /** What the binary is and can run; null when it could not be identified (`problem` says why). */
  profile: CoreProfile | null;
  problem: string | null;
}

export interface CoreSurvey {
  /** The core that runs the tunnel; null when there is none usable (`mainProblem` says why). */
  main: SurveyedCore | null;
  mainProblem: string | null;
  /** The cores that carry what the main core cannot (sing-box), only beside a main core. */
  carriers: SurveyedCore[];
  /** Found and not in use: another main core the user may choose, a core that could not be identified. */
  available: SurveyedCore[];
}

/** Finds every core, identifies each (its own config test confirms what it can run), and gives each its role. */
export async function surveyCores(wanted: CoreWanted): Promise<CoreSurvey> {
  const [chosen, found] = await Promise.all([locateCore({ settingPath: wanted.corePath, resourcesDir: wanted.resourcesDir }), locateCores({ resourcesDir: wanted.resourcesDir })]);
  const identified = await Promise.all(found.map((core) => identify(core.name, core.path, core.source)));
  let main: SurveyedCore | null = null;
  let mainProblem: string | null = null;
  let unusable: SurveyedCore[] = [];
  if ('error' in chosen) {
    mainProblem = chosen.error;
  } else {
    const already = identified.find((core) => core.path === chosen.path);
    // A core chosen by name keeps where it was found; `setting` says only that the user chose it.
    const candidate = already ? { ...already, source: chosen.source } : await identify(basename(chosen.path), chosen.path, chosen.source);
    if (candidate.profile) main = candidate;
    else {
      mainProblem = `the core at ${candidate.path} could not be used: ${candidate.problem ?? 'it was not identified'}`;
      // A chosen path outside the usual places is still listed, with why it cannot be used.
      if (!already) unusable = [candidate];
    }
  }
  const others = identified.filter((core) => core.path !== main?.path);
  // As findCore: sing-box carries beside a main core, never instead of one.
  const carriers = main ? others.filter((core) => core.profile?.family === 'sing-box') : [];
  const available = [...others.filter((core) => !carriers.includes(core)), ...unusable];
  return { main, mainProblem, carriers, available };
}

async function identify(fileName: string, path: string, source: CoreWhere): Promise<SurveyedCore> {
  try {
    const profile = await detectCore(path);
    return { name: profile.family, path, source, profile, problem: null };
  } catch (error) {
    return { name: fileName.replace(/\.exe$/i, ''), path, source, profile: null, problem: error instanceof Error ? error.message : String(error) };
  }
}
