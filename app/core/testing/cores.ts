/**
 * Where the real cores are on this machine, for tests and benchmarks that run them: `npm run
 * setup` builds Xray and sing-box at their pinned versions into `resources/core/<platform>-<arch>/`
 * (scripts/build-cores.mjs), and Debian's v2ray 4.34 stays on PATH as the control core. A test
 * that needs a core which is not there fails with the command that provides it, never skips.
 */
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type LabCoreName = 'xray' | 'sing-box' | 'v2ray';

const bundledDir = fileURLToPath(new URL(`../../../resources/core/${process.platform}-${process.arch}`, import.meta.url));

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The path of `name` if this machine has it: the bundled folder first (as the app looks), then PATH. */
export function findLabCore(name: LabCoreName): string | null {
  const bundled = join(bundledDir, name);
  if (name !== 'v2ray' && executable(bundled)) return bundled;
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/bin', '/usr/local/bin']) {
    if (dir && executable(join(dir, name))) return join(dir, name);
  }
  return null;
}

/** The path of `name`, or an error that says how to get it. */
export function labCore(name: LabCoreName): string {
  const path = findLabCore(name);
  if (path) return path;
  const how = name === 'v2ray' ? 'apt-get install v2ray (npm run setup does it as root)' : 'npm run setup (builds it from its Go module)';
  throw new Error(`the ${name} core is not on this machine: ${how}`);
}
