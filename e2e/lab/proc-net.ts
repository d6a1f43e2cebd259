/**
 * Who listens where, read from Linux's /proc: the tests use it to prove every lab listener is on
 * loopback and that nothing is left listening (and no process left running) after the lab stops.
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

export interface Listener {
  address: string;
  port: number;
  inode: string;
  family: 4 | 6;
}

function ipv4FromHex(hex: string): string {
  // /proc/net/tcp writes the address as a little-endian 32-bit number.
  const bytes = hex.match(/../g) ?? [];
  return bytes
    .reverse()
    .map((b) => parseInt(b, 16))
    .join('.');
}

function ipv6FromHex(hex: string): string {
  const words: string[] = [];
  for (let i = 0; i < 32; i += 8) {
    const group = hex.slice(i, i + 8).match(/../g) ?? [];
    const le = group.reverse().join('');
    words.push(le.slice(0, 4), le.slice(4, 8));
  }
  return words.map((w) => w.replace(/^0+(?=.)/, '')).join(':');
}

/** Every TCP socket in LISTEN state on this machine (this network namespace). */
export function tcpListeners(): Listener[] {
  const out: Listener[] = [];
  for (const [file, family] of [
    ['/proc/net/tcp', 4],
    ['/proc/net/tcp6', 6],
  ] as const) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.trim().split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      const [addrHex, portHex] = (cols[1] ?? ':').split(':');
      if (cols[3] !== '0A') continue; // LISTEN
      out.push({
        address: family === 4 ? ipv4FromHex(addrHex ?? '') : ipv6FromHex(addrHex ?? ''),
        port: parseInt(portHex ?? '0', 16),
        inode: cols[9] ?? '',
        family,
      });
    }
  }
  return out;
}

/** Socket inodes a process holds open. */
export function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1] as string);
    } catch {
      // fd closed while we looked
    }
  }
  return inodes;
}

/** The process's children, grandchildren, … (from /proc/<pid>/task/<tid>/children). */
export function descendants(pid: number): number[] {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.shift() as number;
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${current}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      try {
        const children = readFileSync(`/proc/${current}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
        for (const child of children) {
          found.push(child);
          queue.push(child);
        }
      } catch {
        // task ended while we looked
      }
    }
  }
  return found;
}

export interface UdpSocket extends Listener {
  /** The connected peer ("0.0.0.0" / "0:0:…" and port 0 when unconnected). */
  remoteAddress: string;
  remotePort: number;
}

/** Every UDP socket on this machine (this network namespace): UDP has no LISTEN, a bound socket receives. */
export function udpSockets(): UdpSocket[] {
  const out: UdpSocket[] = [];
  for (const [file, family] of [
    ['/proc/net/udp', 4],
    ['/proc/net/udp6', 6],
  ] as const) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.trim().split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      const [addrHex, portHex] = (cols[1] ?? ':').split(':');
      const [remoteHex, remotePortHex] = (cols[2] ?? ':').split(':');
      const decode = (hex: string) => (family === 4 ? ipv4FromHex(hex) : ipv6FromHex(hex));
      out.push({
        address: decode(addrHex ?? ''),
        port: parseInt(portHex ?? '0', 16),
        remoteAddress: decode(remoteHex ?? ''),
        remotePort: parseInt(remotePortHex ?? '0', 16),
        inode: cols[9] ?? '',
        family,
      });
    }
  }
  return out;
}

/** UDP sockets held by any of `pids`. */
export function udpSocketsOf(pids: number[]): UdpSocket[] {
  const inodes = new Set<string>();
  for (const pid of pids) for (const inode of socketInodes(pid)) inodes.add(inode);
  return udpSockets().filter((s) => inodes.has(s.inode));
}

/** A UDP socket that only loopback can reach: bound to loopback, or connected to a loopback peer. */
export function udpOnLoopback(s: UdpSocket): boolean {
  const peer = { ...s, address: s.remoteAddress };
  return isLoopback(s) || (s.remotePort !== 0 && isLoopback(peer));
}

/** Listening sockets held by any of `pids`. */
export function listenersOf(pids: number[]): Listener[] {
  const inodes = new Set<string>();
  for (const pid of pids) for (const inode of socketInodes(pid)) inodes.add(inode);
  return tcpListeners().filter((l) => inodes.has(l.inode));
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function isLoopback(l: Listener): boolean {
  return (l.family === 4 && l.address.startsWith('127.')) || (l.family === 6 && (l.address === '0:0:0:0:0:0:0:1' || l.address === '::1'));
}
