import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tunEngineCandidates } from './tun-engine';

describe('where sing-box is looked for', () => {
  it('beside the bundled cores first, as the cores are found, then PATH', () => {
    expect(tunEngineCandidates({ resourcesDir: '/Applications/Steadfast VPN.app/Contents/Resources', platform: 'darwin', arch: 'arm64', env: { PATH: '/opt/homebrew/bin:/usr/local/bin' } })).toEqual([
      join('/Applications/Steadfast VPN.app/Contents/Resources', 'core', 'darwin-arm64', 'sing-box'),
      join('/Applications/Steadfast VPN.app/Contents/Resources', 'core', 'darwin', 'sing-box'),
      join('/Applications/Steadfast VPN.app/Contents/Resources', 'core', 'sing-box'),
      join('/opt/homebrew/bin', 'sing-box'),
      join('/usr/local/bin', 'sing-box'),
    ]);
  });

  it('on Windows: sing-box.exe, and PATH read from `Path` split on semicolons', () => {
    const candidates = tunEngineCandidates({ resourcesDir: 'R', platform: 'win32', arch: 'x64', env: { Path: 'C:\\tools;C:\\bin' } });
    expect(candidates[0]).toBe(join('R', 'core', 'win32-x64', 'sing-box.exe'));
    expect(candidates.slice(3)).toEqual([join('C:\\tools', 'sing-box.exe'), join('C:\\bin', 'sing-box.exe')]);
  });

  it('without bundled cores (development), PATH alone', () => {
    expect(tunEngineCandidates({ platform: 'darwin', env: { PATH: '' } })).toEqual([]);
  });
});
