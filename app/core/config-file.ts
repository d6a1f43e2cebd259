import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Writes a core config to `<dir>/<name>.json`: mode 0600 from the first byte (it holds UUIDs and
 * passwords), flushed, then renamed over the old file so a core never reads half a config.
 * `dir` is the app data folder's runtime directory (created 0700 if missing). Returns the path.
 */
export async function writeConfigFile(dir: string, name: string, config: object): Promise<string> {
  if (!/^[\w.-]+$/.test(name)) throw new Error(`invalid config file name "${name}"`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, name.endsWith('.json') ? name : `${name}.json`);
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(JSON.stringify(config));
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
