import { execFile } from 'node:child_process';

/**
 * Whether the core can take part in system-wide capture: it marks its sockets (SO_MARK) and
 * accepts transparent ones (IP_TRANSPARENT), both of which need CAP_NET_ADMIN. Without it the core
 * still starts, but captured traffic would reach a socket that cannot take it and every dial would
 * fail: the machine would be offline while "connected". So system-wide mode refuses to start then.
 * Root has the capability; otherwise the core binary must carry it as a file capability.
 */
export async function coreCanCapture(corePath: string, euid = process.geteuid?.() ?? -1): Promise<boolean> {
  if (euid === 0) return true;
  const output = await new Promise<string>((resolve) => {
    execFile('getcap', [corePath], { timeout: 5000 }, (error, stdout) => resolve(error ? '' : stdout));
  });
  return /cap_net_admin/i.test(output);
}

export function coreCannotCaptureReason(corePath: string): string {
  return `system-wide mode needs the core to hold CAP_NET_ADMIN (to mark its own connections and take the captured ones): run the app as root, or give the core that capability once with "sudo setcap cap_net_admin+ep ${corePath}"`;
}
