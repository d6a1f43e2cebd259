import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRoutingFile } from './routing-file';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'steadfast-routing-file-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function fileWith(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

describe('--routing FILE', () => {
  it('reads the routing section with defaults, and dns when given', async () => {
    const path = await fileWith('ok.json', JSON.stringify({ routing: { preset: 'ir', rules: [{ ip: ['127.0.0.200/32'], outbound: 'direct' }] }, dns: { domestic: '127.0.0.53' } }));
    const file = await readRoutingFile(path);
    expect(file.routing).toMatchObject({ preset: 'ir', bypassLan: true, rules: [{ ip: ['127.0.0.200/32'], outbound: 'direct' }] });
    expect(file.dns).toEqual({ remote: 'https://1.1.1.1/dns-query', domestic: '127.0.0.53' });
  });

  it('names every invalid entry: a malformed CIDR, an unknown outbound', async () => {
    const path = await fileWith('bad.json', JSON.stringify({ routing: { rules: [{ ip: ['10.0.0.0/8', '300.1.2.3/8'], outbound: 'direct' }, { domain: ['a.example'], outbound: 'vpn' }] } }));
    await expect(readRoutingFile(path)).rejects.toThrow(
      `the routing file ${path} is not valid:\n  routing, rule 1, ip 2: "300.1.2.3/8" is not an IP address or CIDR block\n  routing, rule 2, outbound: unknown outbound "vpn": use proxy, direct, block`,
    );
  });

  it('refuses a 10 MB rules file before reading it', async () => {
    const rule = JSON.stringify({ domain: ['full:x.example'], outbound: 'block' });
    const path = await fileWith('huge.json', `{"routing":{"rules":[${Array.from({ length: Math.ceil((10 * 1024 * 1024) / rule.length) }, () => rule).join(',')}]}}`);
    await expect(readRoutingFile(path)).rejects.toThrow(/is 10\.\d MB; at most 1 MB is read/);
  });

  it('says when the file is missing or not JSON', async () => {
    await expect(readRoutingFile(join(dir, 'none.json'))).rejects.toThrow(/cannot read the routing file .*ENOENT/);
    await expect(readRoutingFile(await fileWith('text.json', 'preset: ir'))).rejects.toThrow(/is not JSON/);
  });
});
