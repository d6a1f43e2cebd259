import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type ArgvRunner, serveHelperSession } from '../linux/helper';
import type { ArgvCommand } from '../linux/policy/capture-plan';
import { killSwitchRuleset } from './policy/kill-switch-rules';

const plan = { servers: ['198.51.100.254'], allowLan: true };

/** A helper session over in-memory pipes, recording the commands it would run as root. */
function session(outcome: (command: ArgvCommand) => { code: number | null; stderr: string } = () => ({ code: 0, stderr: '' })) {
  const input = new PassThrough();
  const output = new PassThrough();
  const ran: ArgvCommand[] = [];
  const run: ArgvRunner = async (command) => {
    ran.push(command);
    return outcome(command);
  };
  const lines: string[] = [];
  output.setEncoding('utf8').on('data', (chunk: string) => lines.push(...chunk.split('\n').filter(Boolean)));
  const done = serveHelperSession(input, output, run);
  const send = async (request: unknown) => {
    const before = lines.length;
    input.write(`${JSON.stringify(request)}\n`);
    while (lines.length === before) await new Promise((resolve) => setTimeout(resolve, 1));
    return JSON.parse(lines[lines.length - 1] as string) as { ok: boolean; detail?: string; error?: string };
  };
  const said = () => ran.map((c) => [c.file, ...c.args].join(' '));
  return { input, ran, said, done, send };
}

describe('the kill switch in the privileged helper', () => {
  it('puts the ruleset in with one nft transaction and says what it allowed', async () => {
    const s = session();
    expect(await s.send({ op: 'kill-switch-on', plan })).toEqual({ ok: true, detail: 'kill switch in force: 1 server address(es) allowed, LAN allowed' });
    expect(s.ran).toEqual([{ file: 'nft', args: ['-f', '-'], input: killSwitchRuleset(plan) }]);
    s.input.end();
    await s.done;
  });

  it.each([
    ['the app going away (a crash, kill -9)', async (s: ReturnType<typeof session>) => s.input.end()],
    ['`end` (a disconnect)', async (s: ReturnType<typeof session>) => void (await s.send({ op: 'end' }))],
  ])('%s removes the capture but leaves the kill switch in force', async (_, ending) => {
    const s = session();
    await s.send({ op: 'kill-switch-on', plan });
    await ending(s);
    await s.done;
    expect(s.said()).toContain('nft delete table inet steadfast_vpn');
    expect(s.said()).not.toContain('nft delete table inet steadfast_killswitch');
  });

  it('turns it off by deleting its table; a table already gone is off too', async () => {
    const s = session((command) => (command.args[0] === 'delete' ? { code: 1, stderr: 'Error: No such file or directory; did you mean table ‘steadfast_vpn’ in family inet?' } : { code: 0, stderr: '' }));
    expect(await s.send({ op: 'kill-switch-off' })).toEqual({ ok: true, detail: 'kill switch off' });
    expect(s.said()).toEqual(['nft delete table inet steadfast_killswitch']);
    s.input.end();
    await s.done;
  });

  it('reports nft refusing the ruleset with its words', async () => {
    const s = session(() => ({ code: 1, stderr: 'Error: Could not process rule: No such file or directory' }));
    const reply = await s.send({ op: 'kill-switch-on', plan });
    expect(reply).toEqual({ ok: false, error: 'nft failed: Error: Could not process rule: No such file or directory' });
    s.input.end();
    await s.done;
  });

  it.each([
    ['a host name in the list', { op: 'kill-switch-on', plan: { servers: ['vpn.example.com'], allowLan: false } }, /^refused kill switch plan: not an IP address/],
    ['a field that is not in the interface', { op: 'kill-switch-on', plan: { ...plan, ruleset: 'flush ruleset' } }, /^refused request/],
    ['an address too long to be one', { op: 'kill-switch-on', plan: { servers: ['1'.repeat(65)], allowLan: false } }, /^refused request/],
  ])('refuses %s and runs nothing', async (_, request, error) => {
    const s = session();
    const reply = await s.send(request);
    expect(reply.ok).toBe(false);
    expect(reply.error).toMatch(error);
    expect(s.ran).toEqual([]);
    s.input.end();
    await s.done;
  });
});
