/**
 * ICMP echo through the system's `ping` (a raw ICMP socket needs privileges Node does not have).
 * Where `ping` is missing or not permitted, the method is reported unavailable with the reason,
 * so the UI can say why instead of showing a failure.
 */
import { spawn } from 'node:child_process';
import type { ProbeOutcome } from '../../shared/domain/measurement';

export type IcmpResult = ProbeOutcome | { ok: false; unavailable: true; reason: string };

export type IcmpPing = (host: string, timeoutMs: number) => Promise<IcmpResult>;

/** The command line for one echo request with a deadline, per platform. */
export function pingCommand(host: string, timeoutMs: number, platform: NodeJS.Platform = process.platform): { file: string; args: string[] } {
  const seconds = Math.max(1, Math.ceil(timeoutMs / 1000));
  const v6 = host.includes(':');
  switch (platform) {
    case 'win32':
      return { file: 'ping', args: ['-n', '1', '-w', String(Math.max(1, timeoutMs)), ...(v6 ? ['-6'] : []), host] };
    case 'darwin':
      // macOS: -W is the wait for a reply in milliseconds; IPv6 needs ping6.
      return v6 ? { file: 'ping6', args: ['-c', '1', host] } : { file: 'ping', args: ['-c', '1', '-W', String(Math.max(1, timeoutMs)), host] };
    default:
      // iputils and busybox: -W is the wait for a reply in seconds.
      return { file: 'ping', args: ['-c', '1', '-W', String(seconds), ...(v6 ? ['-6'] : []), host] };
  }
}

/** Reads the round-trip time from ping's output: `time=12.3 ms`, `time<1ms`, `Zeit=12ms`. */
export function parsePingTime(output: string): number | null {
  const match = output.match(/(?:time|zeit|tiempo|temps|durée|tempo|время)\s*([=<])\s*([\d.,]+)\s*ms/i);
  if (!match) return null;
  const value = Number((match[2] as string).replace(',', '.'));
  if (!Number.isFinite(value)) return null;
  return match[1] === '<' ? Math.min(value, 1) : Math.round(value * 10) / 10;
}

/** Why ping could not run at all (as opposed to "no reply"), or null. */
export function unavailableReason(output: string, exitCode: number | null): string | null {
  if (/operation not permitted|permission denied|socket: .*not permitted|you must be root|requires root/i.test(output)) {
    return 'the system ping is not permitted to send ICMP here';
  }
  if (exitCode === 127) return 'the system ping command is not installed';
  return null;
}

export function icmpPing(host: string, timeoutMs: number, platform: NodeJS.Platform = process.platform): Promise<IcmpResult> {
  const { file, args } = pingCommand(host, timeoutMs, platform);
  return new Promise((resolve) => {
    let output = '';
    let settled = false;
    const finish = (result: IcmpResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(killer);
      resolve(result);
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true, env: { ...process.env, LC_ALL: 'C' } });
    } catch (error) {
      resolve({ ok: false, unavailable: true, reason: `the system ping could not start: ${(error as Error).message}` });
      return;
    }
    // ping's own deadline can overshoot (DNS resolution happens before it): a hard stop of our own.
    const killer = setTimeout(() => {
      child.kill('SIGKILL');
      finish({ ok: false, error: { kind: 'timeout', message: `no ICMP reply within ${timeoutMs} ms` } });
    }, timeoutMs + 1500);
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) => {
      const reason =
        error.code === 'ENOENT' ? 'the system ping command is not installed' : `the system ping could not start: ${error.message}`;
      finish({ ok: false, unavailable: true, reason });
    });
    child.on('close', (code) => {
      const time = parsePingTime(output);
      if (time !== null && code === 0) return finish({ ok: true, delayMs: time });
      const unavailable = unavailableReason(output, code);
      if (unavailable) return finish({ ok: false, unavailable: true, reason: unavailable });
      if (/unknown host|name or service not known|cannot resolve|could not find host|temporary failure in name resolution/i.test(output)) {
        return finish({ ok: false, error: { kind: 'dns', message: `cannot resolve ${host}` } });
      }
      finish({ ok: false, error: { kind: 'timeout', message: `no ICMP reply within ${timeoutMs} ms` } });
    });
  });
}
