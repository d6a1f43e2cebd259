/**
 * `npm run fetch-cores -- [--target <platform>-<arch>] [--base-url URL]`: downloads the pinned
 * releases of the core (Xray) and the TUN engine (sing-box) for a target, checks each archive's
 * SHA-256 against `resources/core/pins.json` (the one place pins live), and puts the binaries
 * where electron-builder takes them (`resources/core/<target>/`). An asset without a pin, a
 * checksum that differs, a short download or a missing asset stops the fetch with the asset named,
 * and nothing half-fetched is left in place. `--base-url` replaces the release host (mirrors; the
 * tests' local stand-in server).
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';

const exec = promisify(execFile);

// A digest is only as good as where it came from: a filled pin names its source (a manifest or
// script that pins the same file, at a commit), so anyone can check it again.
const assetSchema = z
  .object({
    file: z.string().regex(/^[A-Za-z0-9._-]+$/),
    sha256: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
    source: z.string().trim().min(1).nullable().optional(),
  })
  .refine((asset) => asset.sha256 === null || !!asset.source, { message: 'a filled sha256 must name its source' });

/**
 * How setup builds the same version from its Go module (scripts/build-cores.mjs reads these
 * fields): the module at its version, the main package, the build tags and linker flags, and the
 * release's tags left out because their modules cannot be had, each with why.
 */
const buildFields = {
  module: z.string().regex(/^[a-z0-9.-]+(\/[A-Za-z0-9._-]+)+$/).optional(),
  moduleVersion: z.string().regex(/^v\d+\.\d+\.\d+[0-9A-Za-z.+-]*$/).optional(),
  package: z.string().regex(/^\.\/[A-Za-z0-9._/-]*$/).optional(),
  tags: z.array(z.string().regex(/^[A-Za-z0-9_]+$/)).optional(),
  ldflags: z.string().optional(),
  omittedTags: z.record(z.string().regex(/^[A-Za-z0-9_]+$/), z.string().trim().min(1)).optional(),
};

const pinsSchema = z.object({
  cores: z.array(
    z
      .object({
        name: z.string().regex(/^[a-z0-9-]+$/),
        version: z.string().regex(/^[0-9][0-9A-Za-z.+-]*$/),
        url: z.url({ protocol: /^https$/ }),
        binary: z.string().regex(/^[a-z0-9-]+$/),
        assets: z.record(z.string(), assetSchema),
        ...buildFields,
      })
      .refine((core) => core.module === undefined || (core.moduleVersion !== undefined && core.package !== undefined && core.tags !== undefined && core.ldflags !== undefined), {
        message: 'a core built from its module needs moduleVersion, package, tags and ldflags',
      })
      .refine((core) => !core.tags?.some((tag) => core.omittedTags?.[tag] !== undefined), { message: 'a tag cannot be both built and omitted' }),
  ),
});
export type CorePins = z.infer<typeof pinsSchema>;

export async function readPins(path: string): Promise<CorePins> {
  return pinsSchema.parse(JSON.parse(await readFile(path, 'utf8')));
}

export interface FetchOptions {
  pins: CorePins;
  /** `<platform>-<arch>`, e.g. linux-x64. */
  target: string;
  /** resources/core: the binaries go to `<coreDir>/<target>/`. */
  coreDir: string;
  /** Replaces the scheme and host of every release URL. */
  baseUrl?: string;
  fetchImpl?: typeof fetch;
  timeoutMs?: number;
}

export class FetchCoresError extends Error {}

function assetUrl(core: CorePins['cores'][number], file: string, baseUrl?: string): string {
  const url = core.url.replace('{version}', core.version).replace('{file}', file);
  if (!baseUrl) return url;
  const original = new URL(url);
  return new URL(original.pathname, baseUrl).href;
}

async function download(url: string, fetchImpl: typeof fetch, timeoutMs: number): Promise<Buffer> {
  let response: Response;
  try {
    response = await fetchImpl(url, { redirect: 'follow', signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    throw new FetchCoresError(`the download of ${url} broke off (${cause})`);
  }
  if (response.status === 404) throw new FetchCoresError(`the release has no such asset (HTTP 404): ${url}`);
  if (!response.ok) throw new FetchCoresError(`HTTP ${response.status} for ${url}`);
  let body: Buffer;
  try {
    body = Buffer.from(await response.arrayBuffer());
  } catch (error) {
    throw new FetchCoresError(`the download of ${url} broke off (${error instanceof Error ? error.message : String(error)})`);
  }
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && body.length !== declared) throw new FetchCoresError(`the download of ${url} is truncated (${body.length} of ${declared} bytes)`);
  return body;
}

async function findFile(dir: string, name: string): Promise<string | null> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = await findFile(path, name);
      if (found) return found;
    } else if (entry.name === name) {
      return path;
    }
  }
  return null;
}

async function extract(archive: string, into: string): Promise<void> {
  if (archive.endsWith('.zip')) await exec('unzip', ['-q', '-o', archive, '-d', into]);
  else if (archive.endsWith('.tar.gz')) await exec('tar', ['-xzf', archive, '-C', into]);
  else throw new FetchCoresError(`cannot unpack ${basename(archive)}`);
}

/**
 * Files an archive carries beside its binary that the binary needs there: Xray's geodata (its
 * geoip:/geosite: rules), and the library the Windows sing-box archives ship next to sing-box.exe.
 */
const COMPANION_FILES = ['geoip.dat', 'geosite.dat', 'libcronet.dll'];

/** Fetches every core of the target; returns the paths written. */
export async function fetchCores(o: FetchOptions): Promise<string[]> {
  const fetchImpl = o.fetchImpl ?? fetch;
  const plan = o.pins.cores.map((core) => {
    const asset = core.assets[o.target];
    if (!asset) throw new FetchCoresError(`${core.name} has no asset pinned for ${o.target}`);
    if (asset.sha256 === null) throw new FetchCoresError(`${core.name} ${core.version} ${asset.file}: no SHA-256 pin in resources/core/pins.json (no published digest of this file was found to copy); fill it, with its source, from a checksum you have checked before fetching`);
    return { core, asset: { file: asset.file, sha256: asset.sha256 } };
  });
  const scratch = await mkdtemp(join(tmpdir(), 'fetch-cores-'));
  const staged: { from: string; to: string; executable: boolean }[] = [];
  const targetDir = join(o.coreDir, o.target);
  try {
    for (const { core, asset } of plan) {
      const url = assetUrl(core, asset.file, o.baseUrl);
      const body = await download(url, fetchImpl, o.timeoutMs ?? 120_000);
      const digest = createHash('sha256').update(body).digest('hex');
      if (digest !== asset.sha256) throw new FetchCoresError(`${asset.file}: SHA-256 ${digest} is not the pinned ${asset.sha256}; nothing was installed`);
      const archive = join(scratch, asset.file);
      await writeFile(archive, body);
      const unpacked = join(scratch, `${core.name}-unpacked`);
      await mkdir(unpacked);
      await extract(archive, unpacked);
      const binaryName = o.target.startsWith('win32') ? `${core.binary}.exe` : core.binary;
      const binary = await findFile(unpacked, binaryName);
      if (!binary) throw new FetchCoresError(`${asset.file} holds no ${binaryName}`);
      staged.push({ from: binary, to: join(targetDir, binaryName), executable: true });
      for (const companion of COMPANION_FILES) {
        const found = await findFile(unpacked, companion);
        if (found) staged.push({ from: found, to: join(targetDir, companion), executable: false });
      }
    }
    // Every archive checked and unpacked: only now does anything reach the target folder.
    await mkdir(targetDir, { recursive: true });
    for (const { from, to, executable } of staged) {
      await copyFile(from, `${to}.partial`);
      if (executable) await chmod(`${to}.partial`, 0o755);
      await rename(`${to}.partial`, to);
    }
    return staged.map((s) => s.to);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
