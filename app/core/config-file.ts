import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, open, rename, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Write errors that say "this folder cannot take the file" rather than "this config is wrong": a
 * full disk, a quota, a read-only or locked-down data folder. The user's connection must not
 * depend on the data folder having room for a few kilobytes, so these fall back to a private
 * folder elsewhere (see `fallbackDir`).
 */
const FOLDER_UNUSABLE = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM']);

/**
 * Writes a core config to `<dir>/<name>.json`: mode 0600 from the first byte (it holds UUIDs and
 * passwords), flushed, then renamed over the old file so a core never reads half a config.
 * `dir` is the app data folder's runtime directory (created 0700 if missing). When that folder
 * cannot take the file (full disk, read-only), the config goes to the process's private fallback
 * folder instead. Returns the path written; callers delete that path when the core is done.
 */
export async function writeConfigFile(dir: string, name: string, config: object): Promise<string> {
  if (!/^[\w.-]+$/.test(name)) throw new Error(`invalid config file name "${name}"`);
  const fileName = name.endsWith('.json') ? name : `${name}.json`;
  const text = JSON.stringify(config);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return await writeAtomically(join(dir, fileName), text);
  } catch (error) {
    if (!FOLDER_UNUSABLE.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
    return writeAtomically(join(await fallbackDir(), fileName), text);
  }
}

async function writeAtomically(path: string, text: string): Promise<string> {
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
    // open()'s mode is filtered by the umask; make 0600 explicit in case the umask is odd.
    await handle.chmod(0o600);
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  await rename(temp, path);
  return path;
}

let fallback: Promise<string> | null = null;

/**
 * A 0700 folder of this process for configs the data folder could not take: in RAM (/dev/shm)
 * where the system has it, since a full disk is the usual reason we are here, else the system's
 * temporary folder. Created once, on first need.
 */
function fallbackDir(): Promise<string> {
  fallback ??= (async () => {
    const shm = '/dev/shm';
    const base = process.platform === 'linux' && (await stat(shm).then((s) => s.isDirectory(), () => false)) ? shm : tmpdir();
    let dir: string;
    try {
      dir = await mkdtemp(join(base, 'steadfast-core-'));
    } catch (error) {
      if (base === tmpdir()) throw error;
      dir = await mkdtemp(join(tmpdir(), 'steadfast-core-'));
    }
    // The configs hold credentials: they leave with the app (its cores are stopped by then).
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  })();
  const pending = fallback;
  // A failed attempt is not remembered: the next write tries again.
  pending.catch(() => {
    if (fallback === pending) fallback = null;
  });
  return pending;
}
