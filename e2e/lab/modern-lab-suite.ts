/**
 * The set-up the integration tests of carried servers' anti-DPI share: the lab with its modern servers (those
 * Xray and sing-box host), both cores, a runtime folder, and a list of what each test started so
 * that the file's end stops it. Registered in the calling file's beforeAll / afterAll.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type InProcessLab, startLab } from '.';
import { LabNetwork } from './network';
import { type CoreProfile, detectCore } from '../../app/core';
import { labCore } from '../../app/core/testing/cores';

export interface ModernLab {
  readonly lab: InProcessLab;
  readonly runtimeDir: string;
  readonly xray: CoreProfile;
  readonly singBox: CoreProfile;
  /** The lab network the tests' own relays join. */
  readonly network: LabNetwork;
  /** What a test started (a relay), stopped in reverse order when the file ends. */
  readonly stops: (() => Promise<void>)[];
}

/** `folderPrefix` names the runtime folder (in the system's temporary folder). */
export function useModernLab(folderPrefix: string): ModernLab {
  const state: { lab?: InProcessLab; runtimeDir?: string; xray?: CoreProfile; singBox?: CoreProfile } = {};
  const network = new LabNetwork();
  const stops: (() => Promise<void>)[] = [];
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the modern lab's ${what} is read before its set-up ran`);
    return value;
  };

  beforeAll(async () => {
    state.lab = await startLab({ servers: 2, subscriptions: 1, modern: true, latency: [5, 10] });
    [state.xray, state.singBox] = await Promise.all([detectCore(labCore('xray')), detectCore(labCore('sing-box'))]);
    state.runtimeDir = await mkdtemp(join(tmpdir(), folderPrefix));
  }, 120_000);

  afterAll(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
    await state.lab?.stop();
    if (state.runtimeDir) await rm(state.runtimeDir, { recursive: true, force: true });
  });

  return {
    get lab() {
      return ready(state.lab, 'lab');
    },
    get runtimeDir() {
      return ready(state.runtimeDir, 'runtime folder');
    },
    get xray() {
      return ready(state.xray, 'Xray');
    },
    get singBox() {
      return ready(state.singBox, 'sing-box');
    },
    network,
    stops,
  };
}
