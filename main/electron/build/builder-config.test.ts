import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Packager as PackagerClass, Platform as PlatformClass } from 'app-builder-lib';
import { describe, expect, it } from 'vitest';
import { DEEP_LINK_SCHEMES } from '../../../app/imports/deep-link';

// electron-builder's own loader and validator (the JSON schema in app-builder-lib/scheme.json,
// plus its package.json checks) run on electron-builder.yml exactly as `electron-builder` would
// before building anything. Nothing is downloaded.

const require = createRequire(import.meta.url);
// Loading app-builder-lib takes a few seconds on a small machine.
const TIMEOUT = 60_000;
const { Packager, Platform } = require('app-builder-lib') as { Packager: typeof PackagerClass; Platform: typeof PlatformClass };
const { expandMacro } = require('app-builder-lib/out/util/macroExpander') as { expandMacro: (pattern: string, arch: string | null, appInfo: object) => string };

const projectDir = process.cwd();

async function validated(config?: Record<string, unknown>) {
  const packager = new Packager({ projectDir, targets: Platform.LINUX.createTarget(['dir']), ...(config ? { config } : {}) });
  await packager.validateConfig();
  return packager;
}

describe('electron-builder.yml', { timeout: TIMEOUT }, () => {
  it('passes electron-builder’s own validation', async () => {
    const packager = await validated();
    expect(packager.config.appId).toBe('org.steadfastvpn.desktop');
    expect(packager.config.productName).toBe('Steadfast VPN');
  });

  it.each([
    ['an unknown top-level key', { notAnOption: true }],
    ['a misspelt installer option', { nsis: { oneClik: false } }],
    ['a wrong type', { asar: 'yes please' }],
    ['an unknown Linux target option', { linux: { targett: 'deb' } }],
  ])('the validation really bites: %s is refused', async (_what, bad) => {
    await expect(validated(bad)).rejects.toThrow(/configuration/i);
  });

  it('declares the same import-link schemes the app registers at run time', async () => {
    const { config } = await validated();
    const protocols = ([] as { schemes: string[] }[]).concat((config.protocols ?? []) as { schemes: string[] }[]);
    expect(protocols.flatMap((p) => p.schemes).sort()).toEqual([...DEEP_LINK_SCHEMES].sort());
  });

  it('builds NSIS for Windows, DMG for macOS, AppImage and deb for Linux', async () => {
    const { config } = await validated();
    const targets = (platform: { target?: unknown } | null | undefined) =>
      ((platform?.target ?? []) as { target: string }[]).map((t) => t.target);
    expect(targets(config.win)).toEqual(['nsis']);
    expect(targets(config.mac)).toEqual(['dmg']);
    expect(targets(config.linux)).toEqual(['AppImage', 'deb']);
  });

  it('ships what `npm run build` produces, and package.json "main" is inside it', async () => {
    const { config, metadata } = await validated();
    const patterns = (config.files as (string | { filter?: string[] })[]).flatMap((f) => (typeof f === 'string' ? [f] : (f.filter ?? [])));
    expect(patterns).toContain('dist/**');
    expect(metadata.main).toBe('dist/main/electron.cjs');
    const pkg = JSON.parse(readFileSync(join(projectDir, 'package.json'), 'utf8')) as { main: string };
    expect(pkg.main).toBe('dist/main/electron.cjs');
  });

  it('copies each target’s core from resources/core/<platform>-<arch>/ to core/, where the app looks for it', async () => {
    const { config } = await validated();
    const appInfo = { productName: 'Steadfast VPN', sanitizedProductName: 'Steadfast VPN' };
    const resources = (platform: unknown) => ((platform as { extraResources: { from: string; to: string }[] }).extraResources ?? []);
    const cases = [
      [config.win, 'win32', 'x64'],
      [config.win, 'win32', 'arm64'],
      [config.mac, 'darwin', 'arm64'],
      [config.linux, 'linux', 'x64'],
    ] as const;
    for (const [platform, name, arch] of cases) {
      const [entry] = resources(platform);
      expect(expandMacro(entry!.from, arch, appInfo)).toBe(`resources/core/${name}-${arch}`);
      expect(entry!.to).toBe('core');
    }
  });

  it('has what the deb target insists on (a homepage and a maintainer with an e-mail) and a large enough icon', async () => {
    const { config, metadata } = await validated();
    expect(metadata.homepage).toMatch(/^https:\/\//);
    expect(config.linux?.maintainer).toMatch(/<[^@\s]+@[^>\s]+>$/);
    const icon = readFileSync(join(projectDir, 'assets', 'icon.png'));
    expect(icon.readUInt32BE(16)).toBeGreaterThanOrEqual(512);
  });
});
