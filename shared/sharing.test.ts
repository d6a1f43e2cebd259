import { describe, expect, it } from 'vitest';
import { settingsPatchSchema, settingsSchema } from './settings';
import { sharingAddressProblem } from './sharing';

describe('household sharing settings', () => {
  it('are off, with no address, by default', () => {
    expect(settingsSchema.parse({}).sharing).toEqual({ enabled: false, address: '' });
  });

  it.each([
    ['10.1.2.3', null],
    ['172.16.0.1', null],
    ['192.168.0.10', null],
    ['fd00::5', null],
    ['fe80::1', null],
    ['8.8.8.8', /not a private LAN address/],
    ['0.0.0.0', /not a private LAN address/],
    ['::', /not a private LAN address/],
    ['127.0.0.1', /not a private LAN address/],
    ['192.169.0.1', /not a private LAN address/],
    ['my-pc.local', /not an IP address/],
    ['192.168.1.300', /not an IP address/],
  ])('%s', (address, problem) => {
    const found = sharingAddressProblem(address);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });

  it('a settings file or a patch with a public address is refused on the address field, with the reason', () => {
    const stored = settingsSchema.safeParse({ sharing: { enabled: true, address: '8.8.8.8' } });
    expect(stored.success).toBe(false);
    expect(stored.error?.issues[0]).toMatchObject({ path: ['sharing', 'address'], message: expect.stringMatching(/not a private LAN address/) });
    expect(settingsPatchSchema.safeParse({ sharing: { enabled: false, address: '0.0.0.0' } }).success).toBe(false);
  });

  it('turning sharing on needs an address; a patch sends the block whole', () => {
    expect(settingsPatchSchema.safeParse({ sharing: { enabled: true, address: '' } }).error?.issues[0]?.message).toMatch(/pick the LAN address/);
    expect(settingsPatchSchema.parse({ sharing: { enabled: true, address: '192.168.1.5' } })).toEqual({ sharing: { enabled: true, address: '192.168.1.5' } });
    expect(settingsPatchSchema.safeParse({ sharing: { enabled: true } }).success).toBe(false);
  });
});
