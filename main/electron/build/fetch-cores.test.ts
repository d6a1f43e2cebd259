import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CorePins, fetchCores, readPins } from './fetch-cores';

/** A stand-in release server on loopback: real archives, one that lies about its length, none for the rest. */
let server: Server;
let baseUrl: string;
const archives = new Map<string, Buffer>();
const truncated = new Set<string>();
let work: string;

function archive(kind: 'zip' | 'tar.gz', name: string, files: Record<string, string>): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'release-'));
  const inner = join(dir, 'content');
  mkdirSync(inner);
  for (const [file, body] of Object.entries(files)) {
    mkdirSync(join(inner, file, '..'), { recursive: true });
    writeFileSync(join(inner, file), body);
  }
  const out = join(dir, name);
  if (kind === 'zip') execFileSync('zip', ['-q', '-r', out, '.'], { cwd: inner });
  else execFileSync('tar', ['-czf', out, '-C', inner, '.']);
  return readFileSync(out);
}

const sha = (body: Buffer) => createHash('sha256').update(body).digest('hex');

function pins(overrides: { xray?: string | null; singBox?: string | null } = {}): CorePins {
  return {
    cores: [
      {
        name: 'xray',
        version: '25.3.6',
        url: 'https://github.com/XTLS/Xray-core/releases/download/v{version}/{file}',
        binary: 'xray',
        assets: {
          'linux-x64': { file: 'Xray-linux-64.zip', sha256: overrides.xray === undefined ? sha(archives.get('/XTLS/Xray-core/releases/download/v25.3.6/Xray-linux-64.zip')!) : overrides.xray, source: 'the stand-in release' },
          'win32-x64': { file: 'Xray-windows-64.zip', sha256: sha(archives.get('/XTLS/Xray-core/releases/download/v25.3.6/Xray-windows-64.zip')!), source: 'the stand-in release' },
        },
      },
      {
        name: 'sing-box',
        version: '1.12.0',
        url: 'https://github.com/SagerNet/sing-box/releases/download/v{version}/{file}',
        binary: 'sing-box',
        assets: {
          'linux-x64': {
            file: 'sing-box-1.12.0-linux-amd64.tar.gz',
            sha256: overrides.singBox === undefined ? sha(archives.get('/SagerNet/sing-box/releases/download/v1.12.0/sing-box-1.12.0-linux-amd64.tar.gz')!) : overrides.singBox,
            source: 'the stand-in release',
          },
          'win32-x64': { file: 'sing-box-1.12.0-windows-amd64.zip', sha256: sha(archives.get('/SagerNet/sing-box/releases/download/v1.12.0/sing-box-1.12.0-windows-amd64.zip')!), source: 'the stand-in release' },
        },
      },
    ],
  };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'fetch-cores-test-'));
  archives.set('/XTLS/Xray-core/releases/download/v25.3.6/Xray-linux-64.zip', archive('zip', 'x.zip', { xray: 'XRAY-BINARY', 'geoip.dat': 'GEOIP', LICENSE: 'l' }));
  archives.set('/SagerNet/sing-box/releases/download/v1.12.0/sing-box-1.12.0-linux-amd64.tar.gz', archive('tar.gz', 's.tar.gz', { 'sing-box-1.12.0-linux-amd64/sing-box': 'SING-BOX-BINARY' }));
  archives.set('/XTLS/Xray-core/releases/download/v25.3.6/Xray-windows-64.zip', archive('zip', 'xw.zip', { 'xray.exe': 'XRAY-EXE', 'geoip.dat': 'GEOIP', 'geosite.dat': 'GEOSITE', 'wxray.exe': 'NOT-THE-CORE' }));
  archives.set(
    '/SagerNet/sing-box/releases/download/v1.12.0/sing-box-1.12.0-windows-amd64.zip',
    archive('zip', 'sw.zip', { 'sing-box-1.12.0-windows-amd64/sing-box.exe': 'SING-BOX-EXE', 'sing-box-1.12.0-windows-amd64/libcronet.dll': 'CRONET', 'sing-box-1.12.0-windows-amd64/LICENSE': 'l' }),
  );
  server = createServer((request, response) => {
    const body = archives.get(request.url ?? '');
    if (!body) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-length': String(body.length) });
    if (truncated.has(request.url ?? '')) {
      response.write(body.subarray(0, body.length >> 1));
      response.destroy();
      return;
    }
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const coreDir = () => mkdtempSync(join(work, 'core-'));

describe('npm run fetch-cores', () => {
  it('a good release: both binaries (and the core’s data files) land executable where electron-builder takes them', async () => {
    const dir = coreDir();
    const written = await fetchCores({ pins: pins(), target: 'linux-x64', coreDir: dir, baseUrl });
    expect(written.map((p) => p.slice(dir.length + 1)).sort()).toEqual(['linux-x64/geoip.dat', 'linux-x64/sing-box', 'linux-x64/xray']);
    expect(readFileSync(join(dir, 'linux-x64', 'xray'), 'utf8')).toBe('XRAY-BINARY');
    expect(readFileSync(join(dir, 'linux-x64', 'sing-box'), 'utf8')).toBe('SING-BOX-BINARY');
    expect(statSync(join(dir, 'linux-x64', 'xray')).mode & 0o111).not.toBe(0);
  });

  it('a Windows target: the .exe binaries, the geodata and the library sing-box ships beside its binary, nothing else', async () => {
    const dir = coreDir();
    const written = await fetchCores({ pins: pins(), target: 'win32-x64', coreDir: dir, baseUrl });
    expect(written.map((p) => p.slice(dir.length + 1)).sort()).toEqual(['win32-x64/geoip.dat', 'win32-x64/geosite.dat', 'win32-x64/libcronet.dll', 'win32-x64/sing-box.exe', 'win32-x64/xray.exe']);
    expect(readFileSync(join(dir, 'win32-x64', 'xray.exe'), 'utf8')).toBe('XRAY-EXE');
    expect(readFileSync(join(dir, 'win32-x64', 'libcronet.dll'), 'utf8')).toBe('CRONET');
    expect(statSync(join(dir, 'win32-x64', 'libcronet.dll')).mode & 0o111).toBe(0);
  });

  it('a wrong checksum: refused, naming both digests, and nothing installed', async () => {
    const dir = coreDir();
    await expect(fetchCores({ pins: pins({ singBox: 'a'.repeat(64) }), target: 'linux-x64', coreDir: dir, baseUrl })).rejects.toThrow(/sing-box-1\.12\.0-linux-amd64\.tar\.gz: SHA-256 [0-9a-f]{64} is not the pinned a{64}; nothing was installed/);
    expect(existsSync(join(dir, 'linux-x64'))).toBe(false);
  });

  it('a truncated download: refused, nothing installed', async () => {
    const dir = coreDir();
    truncated.add('/XTLS/Xray-core/releases/download/v25.3.6/Xray-linux-64.zip');
    try {
      await expect(fetchCores({ pins: pins(), target: 'linux-x64', coreDir: dir, baseUrl })).rejects.toThrow(/Xray-linux-64\.zip (broke off|is truncated)/);
    } finally {
      truncated.clear();
    }
    expect(existsSync(join(dir, 'linux-x64'))).toBe(false);
  });

  it('a missing asset: refused with the URL', async () => {
    const missing = pins();
    missing.cores[0]!.version = '25.9.9';
    await expect(fetchCores({ pins: missing, target: 'linux-x64', coreDir: coreDir(), baseUrl })).rejects.toThrow('the release has no such asset (HTTP 404)');
  });

  it('a pin nobody filled: refused before anything is downloaded; a target with no asset: refused', async () => {
    await expect(fetchCores({ pins: pins({ xray: null }), target: 'linux-x64', coreDir: coreDir(), baseUrl: 'http://127.0.0.1:1/' })).rejects.toThrow('no SHA-256 pin in resources/core/pins.json');
    await expect(fetchCores({ pins: pins(), target: 'freebsd-x64', coreDir: coreDir(), baseUrl })).rejects.toThrow('xray has no asset pinned for freebsd-x64');
  });

  it('a digest that does not say where it came from: the pin file is refused', async () => {
    const path = join(work, 'unsourced-pins.json');
    const unsourced = pins();
    delete unsourced.cores[0]!.assets['linux-x64']!.source;
    writeFileSync(path, JSON.stringify(unsourced));
    await expect(readPins(path)).rejects.toThrow('a filled sha256 must name its source');
    writeFileSync(path, JSON.stringify(pins({ xray: null })).replace('"source":"the stand-in release"', '"source":null'));
    await expect(readPins(path)).resolves.toBeDefined();
  });

  it('the repository’s pin file: both releases, every target, each digest with where it came from, file names of the pinned version', async () => {
    const repo = await readPins(join(import.meta.dirname, '..', '..', '..', 'resources', 'core', 'pins.json'));
    expect(repo.cores.map((c) => [c.name, c.version])).toEqual([
      ['xray', '26.3.27'],
      ['sing-box', '1.14.1'],
    ]);
    for (const core of repo.cores) {
      expect(Object.keys(core.assets).sort()).toEqual(['darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-x64', 'win32-arm64', 'win32-x64']);
    }
    const [xray, singBox] = repo.cores as [CorePins['cores'][number], CorePins['cores'][number]];
    for (const asset of Object.values(xray.assets)) {
      expect(asset.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(asset.source).toMatch(/^[\w.-]+\/[\w.-]+ \S+ @ [0-9a-f]{40}/);
    }
    for (const asset of Object.values(singBox.assets)) expect(asset.file).toContain(`sing-box-${singBox.version}-`);
    // No published digest of the Windows ARM64 archive was found: that one target is refused, the rest are pinned.
    const unpinned = Object.entries(singBox.assets).filter(([, asset]) => asset.sha256 === null).map(([target]) => target);
    expect(unpinned).toEqual(['win32-arm64']);
    for (const [target, asset] of Object.entries(singBox.assets)) {
      if (target === 'win32-arm64') continue;
      expect(asset.sha256, target).toMatch(/^[0-9a-f]{64}$/);
      expect(asset.source, target).toMatch(/sing-box 1\.14\.1/);
    }
    await expect(fetchCores({ pins: repo, target: 'win32-arm64', coreDir: coreDir(), baseUrl: 'http://127.0.0.1:1/' })).rejects.toThrow(
      'sing-box 1.14.1 sing-box-1.14.1-windows-arm64.zip: no SHA-256 pin in resources/core/pins.json',
    );
  });

  it('the repository’s pin file says how setup builds each core from its module: the same version, the release’s tags but those not served', async () => {
    const repo = await readPins(join(import.meta.dirname, '..', '..', '..', 'resources', 'core', 'pins.json'));
    const [xray, singBox] = repo.cores as [CorePins['cores'][number], CorePins['cores'][number]];
    expect(xray).toMatchObject({ module: 'github.com/xtls/xray-core', moduleVersion: 'v1.260327.0', package: './main', tags: [] });
    expect(singBox).toMatchObject({ module: 'github.com/sagernet/sing-box', moduleVersion: `v${singBox.version}`, package: './cmd/sing-box' });
    expect(singBox.ldflags).toContain(`constant.Version=${singBox.version}`);
    expect(singBox.tags).toEqual(expect.arrayContaining(['with_gvisor', 'with_quic', 'with_utls', 'with_clash_api']));
    expect(Object.keys(singBox.omittedTags ?? {}).sort()).toEqual(['with_naive_outbound', 'with_openconnect', 'with_tailscale', 'with_wireguard']);
    for (const tag of Object.keys(singBox.omittedTags ?? {})) expect(singBox.tags).not.toContain(tag);
  });

  it('a module without how to build it, or a tag both built and omitted: the pin file is refused', async () => {
    const path = join(work, 'build-pins.json');
    const write = (core: Record<string, unknown>) => writeFileSync(path, JSON.stringify({ cores: [{ ...pins().cores[1], ...core }] }));
    write({ module: 'github.com/sagernet/sing-box', moduleVersion: 'v1.12.0', package: './cmd/sing-box', tags: ['with_quic'] });
    await expect(readPins(path)).rejects.toThrow('a core built from its module needs moduleVersion, package, tags and ldflags');
    write({ module: 'github.com/sagernet/sing-box', moduleVersion: 'v1.12.0', package: './cmd/sing-box', tags: ['with_wireguard'], ldflags: '-s -w', omittedTags: { with_wireguard: 'not served' } });
    await expect(readPins(path)).rejects.toThrow('a tag cannot be both built and omitted');
    write({ module: 'github.com/sagernet/sing-box', moduleVersion: 'v1.12.0', package: './cmd/sing-box', tags: ['with_quic'], ldflags: '-s -w', omittedTags: { with_wireguard: 'not served' } });
    await expect(readPins(path)).resolves.toBeDefined();
  });
});
