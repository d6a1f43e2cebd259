/**
 * Rule-set updates with the real cores: a file served on loopback is fetched, read, checked by
 * Xray (`run -test`) and sing-box (`check`, `rule-set compile` / `decompile`), and put in force;
 * a corrupt file, an oversize one and a 404 each leave the copy in force with the reason; the
 * copy and its record survive a restart.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleSetSchema } from '../../../shared/rule-sets';
import { labCore } from '../../core/testing/cores';
import { memoryLogger } from '../../log/logger';
import { HttpSubscriptionFetcher } from '../../subscriptions/fetch';
import type { CoreBinary } from './core-tools';
import { type RuleSetCores, RuleSetStore } from './store';
import { RuleSetFileServer } from './testing/file-server';
import { geoipDat, geositeDat } from './testing/geo-dat-writer';

const MAX_BYTES = 64 * 1024;
const xray: CoreBinary = { path: labCore('xray'), family: 'xray' };
const singBox: CoreBinary = { path: labCore('sing-box'), family: 'sing-box' };
let files: RuleSetFileServer;
let dataDir: string;
let now = 1_000_000;
const fetcher = new HttpSubscriptionFetcher({ maxBytes: MAX_BYTES, timeoutMs: 10_000 });

beforeAll(async () => {
  files = await new RuleSetFileServer().start();
  dataDir = await mkdtemp(join(tmpdir(), 'steadfast-rule-sets-'));
});
afterAll(async () => {
  await files.stop();
  await fetcher.close();
  await rm(dataDir, { recursive: true, force: true });
});

function store(cores: RuleSetCores = { router: xray, singBox }) {
  return new RuleSetStore({ dataDir, fetcher, cores, clock: { now: () => now }, logger: memoryLogger().logger, maxBytes: MAX_BYTES });
}
const set = (over: Record<string, unknown>) => ruleSetSchema.parse({ name: 'Lab', outbound: 'direct', enabled: true, ...over });

describe('a geosite.dat list', () => {
  it('is put in force for Xray by ext: and for sing-box as a compiled .srs; failures keep it, with the reason; a restart keeps it', async () => {
    const s = set({ id: 'geo', url: files.url('/geosite.dat'), format: 'geosite-dat', list: 'labset' });
    files.put('/geosite.dat', geositeDat({ LABSET: [{ type: 'domain', value: 'inset.lab.test' }, { type: 'full', value: 'exact.lab.test' }], OTHER: [{ type: 'domain', value: 'x.test' }] }));
    const first = store();
    await first.load();
    expect(await first.update(s)).toMatchObject({ copy: { fetchedAt: now, entries: 2, viaTunnel: false }, lastError: null, unusable: null });
    expect(first.routes([s])).toEqual([{ id: 'geo', name: 'Lab', outbound: 'direct', inPlaceOfPreset: false, domains: ['ext:geo.dat:labset'], cidrs: [], revision: now }]);
    const forSingBox = first.singBoxRuleSet(s);
    expect(forSingBox).toMatchObject({ format: 'binary', path: join(dataDir, 'rule-sets', 'geo.sing-box.srs') });
    // sing-box itself says the converted set matches the names it should.
    const match = (name: string) => {
      const run = spawnSync(singBox.path, ['rule-set', 'match', '-f', 'binary', (forSingBox as { path: string }).path, name]);
      return `${run.stdout}${run.stderr}`;
    };
    expect(match('a.inset.lab.test')).toMatch(/match rules/);
    expect(match('exact.lab.test')).toMatch(/match rules/);
    expect(match('x.test')).toBe('');

    const goodAt = now;
    const cases: [string, () => void, RegExp][] = [
      ['a corrupt file', () => files.put('/geosite.dat', Buffer.from([0x0a, 0xff, 0xff, 0x01, 0x02])), /^the file is not a geosite.dat file/],
      ['an oversize file', () => files.put('/geosite.dat', Buffer.alloc(MAX_BYTES + 1, 0x0a)), /larger than/],
      ['a 404', () => files.remove('/geosite.dat'), /answered HTTP 404 \(Not Found\)$/],
      ['a list the core refuses (a broken regular expression)', () => files.put('/geosite.dat', geositeDat({ LABSET: [{ type: 'regex', value: '([' }] })), /^the list has a regular expression the core cannot use: "\(\["$/],
      ['a list that is gone', () => files.put('/geosite.dat', geositeDat({ OTHER: [{ type: 'full', value: 'x.test' }] })), /has no list "labset" \(it has 1: other\)/],
    ];
    for (const [what, breakIt, reason] of cases) {
      now += 60_000;
      breakIt();
      const status = await first.update(s);
      expect(status.lastError, what).toMatch(reason);
      expect(status.copy, what).toMatchObject({ fetchedAt: goodAt, entries: 2 });
      expect(first.routes([s]), what).toHaveLength(1);
    }

    const restarted = store();
    await restarted.load();
    expect(restarted.status([s])[0]).toMatchObject({ copy: { fetchedAt: goodAt, entries: 2 }, lastError: expect.stringMatching(/has no list/) });
    expect(restarted.routes([s])[0]?.domains).toEqual(['ext:geo.dat:labset']);
    // Nothing half-written is left beside the copies.
    expect((await readdir(join(dataDir, 'rule-sets'))).filter((n) => n.includes('.new'))).toEqual([]);
  });
});

describe('a sing-box .srs', () => {
  it('is decompiled by sing-box into Xray rules, checked by Xray, and counted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'steadfast-srs-'));
    const source = join(dir, 'set.json');
    await writeFile(source, JSON.stringify({ version: 3, rules: [{ domain_suffix: ['inset.lab.test'], domain: ['exact.lab.test'] }, { ip_cidr: ['127.0.0.99/32'] }] }));
    execFileSync(singBox.path, ['rule-set', 'compile', source, '-o', join(dir, 'set.srs')]);
    files.put('/set.srs', await import('node:fs/promises').then((fs) => fs.readFile(join(dir, 'set.srs'))));
    await rm(dir, { recursive: true, force: true });
    const s = set({ id: 'srs', url: files.url('/set.srs'), format: 'srs' });
    const st = store();
    await st.load();
    expect(await st.update(s)).toMatchObject({ copy: { entries: 3 }, lastError: null, unusable: null });
    expect(st.routes([s])[0]).toMatchObject({ domains: ['full:exact.lab.test', 'domain:inset.lab.test'], cidrs: ['127.0.0.99/32'] });
    expect(st.singBoxRuleSet(s)).toMatchObject({ format: 'binary', path: join(dataDir, 'rule-sets', 'srs.srs') });

    // Its inline copy survives a restart.
    const restarted = store();
    await restarted.load();
    expect(restarted.routes([s])[0]?.cidrs).toEqual(['127.0.0.99/32']);

    files.put('/set.srs', Buffer.from('SRS\x01garbage that is no rule set'));
    now += 60_000;
    expect(await st.update(s)).toMatchObject({ copy: { entries: 3 }, lastError: expect.stringMatching(/^sing-box refused it: .*rule-set/) });
  });

  it('without sing-box, Xray cannot read it and the app says so', async () => {
    const s = set({ id: 'srs-alone', url: files.url('/set.srs'), format: 'srs' });
    const st = store({ router: xray, singBox: null });
    expect(await st.update(s)).toMatchObject({ copy: null, lastError: 'xray cannot read .srs files and no sing-box was found to convert it' });
  });
});

describe('a geoip.dat list and source JSON', () => {
  it('an address list goes to Xray by ext: ip, a JSON set inline; a JSON set whose rules Xray cannot take is said to be unusable on it', async () => {
    files.put('/geoip.dat', geoipDat({ LAB: ['127.0.0.99/32', '::99/128'] }));
    files.put('/ports.json', JSON.stringify({ version: 2, rules: [{ domain: ['a.lab.test'], port: [8443] }] }));
    const ip = set({ id: 'ip', url: files.url('/geoip.dat'), format: 'geoip-dat', list: 'lab' });
    const ports = set({ id: 'ports', url: files.url('/ports.json'), format: 'source-json' });
    const st = store();
    expect(await st.update(ip)).toMatchObject({ copy: { entries: 2 }, lastError: null });
    expect(st.routes([ip])[0]).toMatchObject({ domains: [], cidrs: ['ext:ip.dat:lab'] });
    expect(await st.update(ports)).toMatchObject({ copy: { entries: 1 }, unusable: "xray cannot use this set: it matches by port, which Xray's rules cannot take from a rule set" });
    expect(st.routes([ports])).toEqual([]);
    expect(st.singBoxRuleSet(ports)).toMatchObject({ format: 'source', path: join(dataDir, 'rule-sets', 'ports.json') });
  });
});
