import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { PerAppCgroups } from '../per-app/helper-side';
import { type ArgvRunner, serveHelperSession } from './helper';
import { HELPER_READY } from './helper-protocol';
import type { ArgvCommand } from './policy/capture-plan';

const plan = { method: 'tproxy', port: 10850, coreMark: 0x5347, bypassLan: true } as const;

/** Runs a session over in-memory pipes, recording the commands the helper would run as root. */
function session(outcome: (command: ArgvCommand) => { code: number | null; stderr: string } = () => ({ code: 0, stderr: '' })) {
  const input = new PassThrough();
  const output = new PassThrough();
  const ran: string[] = [];
  const run: ArgvRunner = async (command) => {
    ran.push([command.file, ...command.args].join(' '));
    return outcome(command);
  };
  const lines: string[] = [];
  let buffered = '';
  output.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    lines.push(...parts);
  });
  // A machine whose kernel has no cgroup v2 (the real cgroups are the namespace test's, e2e/per-app/).
  const done = serveHelperSession(input, output, run, new PerAppCgroups(run, { mountinfo: async () => '', filesystems: async () => 'nodev\tcgroup\n' }));
  const send = async (request: unknown) => {
    const before = lines.length;
    input.write(`${typeof request === 'string' ? request : JSON.stringify(request)}\n`);
    while (lines.length === before) await new Promise((resolve) => setTimeout(resolve, 1));
    return JSON.parse(lines[lines.length - 1] as string) as { ok: boolean; detail?: string; error?: string; perApp?: { matched: string; skipped: { entry: string; reason: string }[] } };
  };
  return { input, ran, lines, done, send };
}

describe('the capture helper session', () => {
  it('says it is ready, removes leftovers before applying, and removes everything at `end`', async () => {
    const s = session();
    expect((await s.send({ op: 'apply', plan })).ok).toBe(true);
    expect(s.lines[0]).toBe(HELPER_READY);
    expect(s.ran.slice(0, 6)).toEqual(expect.arrayContaining(['nft delete table inet steadfast_vpn']));
    expect(s.ran.indexOf('nft -f -')).toBeGreaterThan(s.ran.indexOf('nft delete table inet steadfast_vpn'));
    s.ran.length = 0;
    expect(await s.send({ op: 'end' })).toEqual({ ok: true, detail: 'removed' });
    await s.done;
    expect(s.ran[0]).toBe('nft delete table inet steadfast_vpn');
  });

  it('the app going away without `end` (a crash, kill -9) removes the capture: the watchdog', async () => {
    const s = session();
    await s.send({ op: 'apply', plan });
    s.ran.length = 0;
    s.input.end();
    await s.done;
    expect(s.ran).toContain('nft delete table inet steadfast_vpn');
    expect(s.ran).toContain('ip -4 rule del fwmark 21318 lookup 5346');
  });

  it('a step that fails takes back what went in (never half a capture)', async () => {
    const s = session((command) => (command.args.includes('route') && command.args.includes('add') ? { code: 2, stderr: 'RTNETLINK answers: Operation not permitted' } : { code: 0, stderr: '' }));
    const reply = await s.send({ op: 'apply', plan });
    expect(reply.ok).toBe(false);
    expect(reply.error).toMatch(/ip -4 route add local 0.0.0.0\/0 dev lo table 5346 failed: RTNETLINK answers: Operation not permitted/);
    expect(s.ran[s.ran.length - 5]).toBe('nft delete table inet steadfast_vpn');
    s.input.end();
    await s.done;
  });

  it('programs by path where the kernel has no cgroup v2: each is said to be unmatched, and the uids still apply', async () => {
    const inputs: string[] = [];
    const s = session((command) => {
      inputs.push(command.input ?? '');
      return { code: 0, stderr: '' };
    });
    const reply = await s.send({ op: 'apply', plan: { ...plan, perApp: { mode: 'bypass', uids: [1001], programs: ['/usr/bin/steam', 'discord'] } } });
    expect(reply.ok).toBe(true);
    expect(reply.perApp?.skipped.map((s) => s.entry)).toEqual(['/usr/bin/steam', 'discord']);
    expect(reply.perApp?.skipped[0]?.reason).toMatch(/no cgroup v2.*uid:N/);
    const ruleset = inputs.find((text) => text.includes('table inet steadfast_vpn')) ?? '';
    expect(ruleset).toContain('meta skuid { 1001 } return');
    expect(ruleset).not.toContain('cgroupv2');
    s.input.end();
    await s.done;
  });

  it('refuses a program that is neither a path nor a name', async () => {
    const s = session();
    const reply = await s.send({ op: 'apply', plan: { ...plan, perApp: { mode: 'only', uids: [], programs: ['uid:1001'] } } });
    expect(reply).toMatchObject({ ok: false, error: expect.stringMatching(/refused request.*absolute path or a program name/s) });
    expect(s.ran).toEqual([]);
    s.input.end();
    await s.done;
  });

  it('probe only checks (nft -c) and changes nothing', async () => {
    const s = session();
    expect(await s.send({ op: 'probe', plan })).toEqual({ ok: true, detail: 'check passed' });
    expect(s.ran).toEqual(['nft -c -f -']);
    s.input.end();
    await s.done;
  });

  it('ipv6 changes only the verdict chain of the capture in place', async () => {
    const inputs: string[] = [];
    const s = session((command) => {
      inputs.push(command.input ?? '');
      return { code: 0, stderr: '' };
    });
    expect(await s.send({ op: 'ipv6', ipv6: 'capture' })).toEqual({ ok: true, detail: 'IPv6 captured' });
    expect(await s.send({ op: 'ipv6', ipv6: 'block' })).toEqual({ ok: true, detail: 'IPv6 blocked' });
    expect(s.ran).toEqual(['nft -f -', 'nft -f -']);
    expect(inputs[1]).toMatch(/^flush chain inet steadfast_vpn ipv6_verdict\nadd rule inet steadfast_vpn ipv6_verdict meta l4proto tcp reject with tcp reset\n/);
    s.input.end();
    await s.done;
  });

  it.each([
    ['an IPv6 handling that is not one of the two', { op: 'ipv6', ipv6: 'accept' }],
    ['an IPv6 handling in a plan that is not one of the two', { op: 'apply', plan: { ...plan, ipv6: 'allow' } }],
    ['an unknown operation', { op: 'exec', command: 'rm -rf /' }],
    ['a field that is not in the interface', { op: 'apply', plan, extra: 'x' }],
    ['a port that is not a number', { op: 'apply', plan: { ...plan, port: '1; flush ruleset' } }],
    ['a mark out of range', { op: 'apply', plan: { ...plan, coreMark: 2 ** 33 } }],
    ['text that is not JSON', 'apply everything'],
  ])('refuses %s and runs nothing', async (_what, request) => {
    const s = session();
    const reply = await s.send(request);
    expect(reply.ok).toBe(false);
    expect(reply.error).toMatch(/^refused request/);
    expect(s.ran).toEqual([]);
    s.input.end();
    await s.done;
  });
});
