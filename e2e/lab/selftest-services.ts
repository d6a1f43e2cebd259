/** Selftest checks of the target's IP-info stand-ins, the subscription server and the control API. */
import { parse as parseYaml } from 'yaml';
import type { IpInfoService } from '../../shared/settings';
import { isRateLimited, readIpInfo } from './ipinfo-check';
import { LAB_IP_INFO_SERVICES } from './ipinfo-formats';
import { type Check, type SelftestContext, round } from './selftest-context';
import { HUGE_BYTES } from './subscription-server';

const SCHEMES = /^(vmess|vless|trojan|ss|hysteria2|hysteria|tuic|wireguard|anytls):\/\//;

/** Each stand-in answers in its format for the calling server, rate-limits in its way, and can time out. */
export async function checkIpInfo(ctx: SelftestContext, through: string): Promise<Check> {
  const spec = ctx.spec(through);
  const results: Record<string, string> = {};
  let ok = true;
  await Promise.all(
    LAB_IP_INFO_SERVICES.map(async (service: IpInfoService) => {
      const url = ctx.lab.info.ipinfoUrls[service];
      const problems: string[] = [];
      const r = await ctx.via(through, url, 5000);
      try {
        const reading = readIpInfo(service, r.body.toString('utf8'));
        if (reading.ip !== spec.exitIp) problems.push(`ip ${reading.ip} != ${spec.exitIp}`);
        if (reading.country !== spec.place.code) problems.push(`country ${reading.country} != ${spec.place.code}`);
      } catch (error) {
        problems.push(`format: ${(error as Error).message} (${r.error ?? `HTTP ${r.status}`})`);
      }
      await ctx.lab.setIpInfo(service, '429');
      const limited = await ctx.direct(url, 2000);
      if (!isRateLimited(service, limited.status ?? 0, limited.body.toString('utf8'), limited.headers)) problems.push(`429 mode: HTTP ${limited.status}`);
      await ctx.lab.setIpInfo(service, 'timeout');
      const silent = await ctx.direct(url, 800);
      if (silent.status !== null) problems.push(`timeout mode answered HTTP ${silent.status}`);
      await ctx.lab.setIpInfo(service, 'ok');
      results[service] = problems.length === 0 ? 'ok' : problems.join('; ');
      if (problems.length > 0) ok = false;
    }),
  );
  return { ok, through, services: results };
}

/** Every subscription in every format lists its servers; each mode misbehaves as asked. */
export async function checkSubscriptions(ctx: SelftestContext): Promise<Check> {
  const problems: string[] = [];
  const state = (await ctx.lab.state()) as { subscriptions: { id: string; servers: string[] }[] };
  for (const sub of ctx.lab.info.subscriptions) {
    const expected = state.subscriptions.find((s) => s.id === sub.id)?.servers.length ?? -1;
    const [b64, plain, json, clash] = await Promise.all(
      ['', '?format=plain', '?format=json', '?format=clash'].map((q) => ctx.direct(`${sub.url}${q}`, 3000)),
    );
    const count = (text: string) => text.split('\n').filter((l) => SCHEMES.test(l)).length;
    const b64Text = Buffer.from(b64?.body.toString('utf8') ?? '', 'base64').toString('utf8');
    if (count(b64Text) !== expected) problems.push(`${sub.id} base64: ${count(b64Text)} links, want ${expected}`);
    if (count(plain?.body.toString('utf8') ?? '') !== expected) problems.push(`${sub.id} plain: wrong link count`);
    if (sub.id === ctx.lab.info.modern?.subscription) {
      // The modern block is served as share links only; the other formats say so.
      if (json?.status !== 400 || clash?.status !== 400) problems.push(`${sub.id}: json/clash answered ${json?.status}/${clash?.status}, want 400`);
      continue;
    }
    try {
      const outbounds = (JSON.parse(json?.body.toString('utf8') ?? '') as { outbounds: { type: string }[] }).outbounds;
      const proxies = outbounds.filter((o) => ['vmess', 'vless', 'trojan', 'shadowsocks'].includes(o.type));
      if (proxies.length !== expected) problems.push(`${sub.id} json: ${proxies.length} outbounds, want ${expected}`);
    } catch (error) {
      problems.push(`${sub.id} json: ${(error as Error).message}`);
    }
    try {
      const proxies = (parseYaml(clash?.body.toString('utf8') ?? '') as { proxies: unknown[] }).proxies;
      if (proxies.length !== expected) problems.push(`${sub.id} clash: ${proxies.length} proxies, want ${expected}`);
    } catch (error) {
      problems.push(`${sub.id} clash: ${(error as Error).message}`);
    }
    const userinfo = b64?.headers['subscription-userinfo'];
    if (typeof userinfo !== 'string' || !/^upload=\d+; download=\d+; total=\d+; expire=\d+$/.test(userinfo)) problems.push(`${sub.id}: subscription-userinfo header "${userinfo}"`);
    if (typeof b64?.headers['profile-title'] !== 'string') problems.push(`${sub.id}: no profile-title header`);
  }

  const first = ctx.lab.info.subscriptions[0];
  const second = state.subscriptions[1] ?? state.subscriptions[0];
  if (!first || !second) return { ok: false, error: 'no subscriptions' };
  const modes: Record<string, unknown> = {};
  // A changed list is served at once.
  const moved = second.servers.slice(0, 2);
  await ctx.lab.setSubscription(first.id, { servers: moved });
  const changed = await ctx.direct(`${first.url}?format=plain`, 3000);
  const changedLinks = changed.body.toString('utf8').split('\n').filter((l) => SCHEMES.test(l)).length;
  if (changedLinks !== moved.length) problems.push(`changed list: ${changedLinks} links, want ${moved.length}`);
  modes.changed_list = `${changedLinks} links`;

  await ctx.lab.setSubscription(first.id, { mode: 'empty' });
  const empty = await ctx.direct(first.url, 3000);
  if (empty.status !== 200 || empty.body.length !== 0) problems.push(`empty: HTTP ${empty.status}, ${empty.body.length} bytes`);
  modes.empty = `HTTP ${empty.status}, ${empty.body.length} bytes`;

  await ctx.lab.setSubscription(first.id, { mode: 'garbage' });
  const garbage = await ctx.direct(first.url, 3000);
  const garbageText = garbage.body.toString('latin1');
  if (garbage.status !== 200 || /^[A-Za-z0-9+/=\s]*$/.test(garbageText)) problems.push('garbage: looks like base64');
  modes.garbage = `HTTP ${garbage.status}, ${garbage.body.length} bytes`;

  await ctx.lab.setSubscription(first.id, { mode: 'hang' });
  const hang = await ctx.direct(first.url, 1500);
  if (hang.status !== null) problems.push(`hang answered HTTP ${hang.status}`);
  modes.hang = hang.error;

  await ctx.lab.setSubscription(first.id, { mode: 'huge' });
  const huge = await ctx.direct(first.url, 20_000);
  if (huge.body.length !== HUGE_BYTES) problems.push(`huge: ${huge.body.length} bytes`);
  modes.huge = `${round(huge.body.length / 1024 ** 2)} MiB in ${round(huge.ms, 0)} ms`;

  await ctx.lab.setSubscription(first.id, { mode: 'ok' });
  await ctx.lab.setSubscription(first.id, { servers: state.subscriptions[0]?.servers ?? [] });
  return { ok: problems.length === 0, subscriptions: ctx.lab.info.subscriptions.length, formats: ['base64', 'plain', 'json', 'clash'], modes, problems };
}

/** Bad control input gets a clear 400 (or 404 for what does not exist), and changes nothing. */
export async function checkControlValidation(ctx: SelftestContext): Promise<Check> {
  const { control } = ctx.lab.info;
  const id = ctx.lab.info.servers[0]?.id ?? 'A1';
  const post = async (path: string, body: string) => {
    const res = await fetch(`${control}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json' }, signal: AbortSignal.timeout(3000) });
    return { status: res.status, body: (await res.json()) as { error?: string } };
  };
  const before = JSON.stringify((await ctx.lab.state()) as object);
  const cases: [string, string, number][] = [
    [`/servers/${id}`, '{"fault":"meteor"}', 400],
    [`/servers/${id}`, '{"latencyMs":-5}', 400],
    [`/servers/${id}`, 'not json', 400],
    ['/servers/Z99', '{"fault":"none"}', 404],
    ['/network', '{"state":"sideways"}', 400],
    ['/subscriptions/A', '{"mode":"weird"}', 400],
    ['/subscriptions/A', '{"servers":["nope"]}', 400],
    ['/ipinfo/example.com', '{"mode":"ok"}', 404],
  ];
  const wrong: string[] = [];
  for (const [path, body, status] of cases) {
    const r = await post(path, body);
    if (r.status !== status || typeof r.body.error !== 'string' || r.body.error.length === 0) wrong.push(`${path} ${body}: ${r.status}`);
  }
  const after = JSON.stringify((await ctx.lab.state()) as object);
  return { ok: wrong.length === 0 && before === after, cases: cases.length, wrong, state_unchanged: before === after };
}
