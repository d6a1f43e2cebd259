/**
 * What the real cores do with a rule-set file: their own config test on a tiny config that uses
 * it (`xray run -test`, `sing-box check`; both load the file and refuse a broken one), and
 * sing-box's converters (`rule-set compile`, `rule-set decompile`). A fetched file replaces the
 * copy in force only after the core that will read it accepted it.
 */
import { execFile } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { assetLocation } from '../../core';

export interface CoreBinary {
  path: string;
  family: 'xray' | 'v2ray' | 'sing-box';
}


function run(path: string, args: string[], cwd: string, env: Record<string, string> = {}, timeoutMs = 60_000): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(path, args, { cwd, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 4 << 20, windowsHide: true, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      resolve({ ok: !error, output: `${stdout}${stderr}` });
    });
  });
}

/** The line of a core's output that says why, without colours and log prefixes. */
function reason(output: string): string {
  const lines = output
    // sing-box colours its FATAL lines even into a pipe.
    // eslint-disable-next-line no-control-regex
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const line = lines.findLast((l) => /fail|error|fatal|invalid/i.test(l)) ?? lines.at(-1) ?? 'no output';
  return line.replace(/^.*?(FATAL|ERROR)\[\d+\]\s*/, '').replace(/^Failed to start: /, '').slice(0, 400);
}

export type Check = { ok: true } | { ok: false; problem: string };

/**
 * Xray (or v2ray) tests a config whose one rule uses the set: an `ext:FILE:LIST` reference for a
 * `.dat` list in `dir` (so the core reads the file itself), or the names and addresses inline.
 */
export function checkWithXray(
  core: CoreBinary,
  dir: string,
  use: { file: string; list: string; holds: 'names' | 'addresses' } | { domains: string[]; cidrs: string[] },
): Promise<Check> {
  const rules: Record<string, unknown>[] = [];
  if ('file' in use) {
    const ref = `ext:${basename(use.file)}:${use.list}`;
    rules.push({ type: 'field', outboundTag: 'direct', ...(use.holds === 'names' ? { domain: [ref] } : { ip: [ref] }) });
  } else {
    if (use.domains.length > 0) rules.push({ type: 'field', outboundTag: 'direct', domain: use.domains });
    if (use.cidrs.length > 0) rules.push({ type: 'field', outboundTag: 'direct', ip: use.cidrs });
  }
  const config = { log: { loglevel: 'error' }, outbounds: [{ tag: 'direct', protocol: 'freedom' }], routing: { rules } };
  return testConfig(core, config, dir, assetLocation(dir));
}

/** sing-box checks a config whose one rule uses the set as a local rule set. */
export function checkWithSingBox(core: CoreBinary, file: string, format: 'binary' | 'source'): Promise<Check> {
  const config = {
    log: { level: 'error' },
    outbounds: [{ type: 'direct', tag: 'direct' }],
    route: { rule_set: [{ tag: 'candidate', type: 'local', format, path: file }], rules: [{ rule_set: ['candidate'], outbound: 'direct' }] },
  };
  return testConfig(core, config, dirname(file), {});
}

async function testConfig(core: CoreBinary, config: object, dir: string, env: Record<string, string>): Promise<Check> {
  const file = join(dir, `check-${process.pid}-${Date.now()}.json`);
  await writeFile(file, JSON.stringify(config), { mode: 0o600 });
  try {
    const args = core.family === 'sing-box' ? ['check', '-c', file] : core.family === 'xray' ? ['run', '-test', '-c', file] : ['-test', '-config', file];
    const result = await run(core.path, args, dir, env);
    return result.ok ? { ok: true } : { ok: false, problem: `${core.family} refused it: ${reason(result.output)}` };
  } finally {
    await rm(file, { force: true });
  }
}

/** `sing-box rule-set compile`: source JSON → `.srs`. */
export async function compileRuleSet(singBox: CoreBinary, source: string, output: string): Promise<Check> {
  const result = await run(singBox.path, ['rule-set', 'compile', source, '-o', output], dirname(output));
  return result.ok ? { ok: true } : { ok: false, problem: `sing-box could not compile it: ${reason(result.output)}` };
}

/** `sing-box rule-set decompile`: `.srs` → source JSON. */
export async function decompileRuleSet(singBox: CoreBinary, srs: string, output: string): Promise<Check> {
  const result = await run(singBox.path, ['rule-set', 'decompile', srs, '-o', output], dirname(output));
  return result.ok ? { ok: true } : { ok: false, problem: `sing-box could not read it: ${reason(result.output)}` };
}
