import { execFile } from 'node:child_process';
import { LINUX_TUN } from './policy/sing-box-tun';

function output(file: string, args: string[]): Promise<string> {
  return new Promise((resolve) => execFile(file, args, { timeout: 5000 }, (error, stdout) => resolve(error ? '' : stdout)));
}

/**
 * Whether sing-box's TUN left anything on this Linux machine: its device, or one of its
 * policy-routing rules (found by their priorities; both can be seen without root).
 */
export async function linuxTunLeftoversPresent(): Promise<boolean> {
  const [rules4, rules6, link] = await Promise.all([output('ip', ['-4', 'rule', 'show']), output('ip', ['-6', 'rule', 'show']), output('ip', ['link', 'show'])]);
  const ruleLine = new RegExp(`^(${ruleRange().join('|')}):`, 'm');
  return ruleLine.test(rules4) || ruleLine.test(rules6) || new RegExp(`^\\d+: ${LINUX_TUN.device}[:@]`, 'm').test(link);
}

function ruleRange(): number[] {
  return Array.from({ length: LINUX_TUN.ruleSpan }, (_, i) => LINUX_TUN.ruleIndex + i);
}
