import { describe, expect, it } from 'vitest';
import { elevationRefusal, helperLaunchCommand } from './elevation';

const base = { execPath: '/usr/bin/node', execArgv: ['--import', 'tsx'], helperScript: '/app/main/helper/capture-helper.ts', electron: false, mode: 'session' as const };

describe('helperLaunchCommand', () => {
  it('as root: the helper runs directly, no prompt', () => {
    expect(helperLaunchCommand({ ...base, euid: 0 })).toEqual({ file: '/usr/bin/node', args: ['--import', 'tsx', '/app/main/helper/capture-helper.ts', 'session'] });
  });

  it('as a user: through pkexec (the desktop’s password prompt); the app itself stays unprivileged', () => {
    expect(helperLaunchCommand({ ...base, euid: 1000, mode: 'remove' })).toEqual({
      file: 'pkexec',
      args: ['/usr/bin/node', '--import', 'tsx', '/app/main/helper/capture-helper.ts', 'remove'],
    });
  });

  it('under Electron: its binary runs as Node, the variable passed through env because pkexec clears the environment', () => {
    expect(helperLaunchCommand({ ...base, euid: 1000, electron: true, execPath: '/opt/Steadfast VPN/steadfast-vpn', execArgv: [], helperScript: '/opt/Steadfast VPN/resources/capture-helper.cjs' })).toEqual({
      file: 'pkexec',
      args: ['/usr/bin/env', 'ELECTRON_RUN_AS_NODE=1', '/opt/Steadfast VPN/steadfast-vpn', '/opt/Steadfast VPN/resources/capture-helper.cjs', 'session'],
    });
  });

  it.each([
    [126, /not granted/],
    [127, /could not be asked for/],
  ])('pkexec exit %i is said in the user’s terms', (code, words) => {
    expect(elevationRefusal(code)).toMatch(words);
  });

  it('other exits are the helper’s own', () => {
    expect(elevationRefusal(1)).toBeNull();
    expect(elevationRefusal(null)).toBeNull();
  });
});
