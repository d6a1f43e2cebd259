import { startLab } from './lab';
import type { LabOptions } from './types';

export async function runSelftest(options: LabOptions): Promise<{ ok: boolean } & Record<string, unknown>> {
  const lab = await startLab(options);
  await lab.stop();
  return { ok: false, reason: 'not written yet' };
}
