/**
 * IPv6 in Linux's nftables capture as the tunnel goes: the helper (a stand-in speaking its
 * protocol, recording every request) is told to capture IPv6 only for a server that carries it,
 * and an Auto switch between servers that differ changes the verdict alone, once.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConnectionState } from '../../shared/domain/connection';
import { sampleServer } from '../core/samples';
import { Logger } from '../log/logger';
import { HELPER_READY } from './linux/helper-protocol';
import { SystemWideCapture } from './system-wide';

const quiet = () => new Logger({ level: 'error', sinks: [] });

/** A helper that answers every request with success and appends it to `log`. */
function recordingHelper(log: string) {
  const script = `const fs=require('fs');console.log(${JSON.stringify(HELPER_READY)});require('readline').createInterface({input:process.stdin}).on('line',(l)=>{fs.appendFileSync(${JSON.stringify(log)},l+'\\n');console.log(JSON.stringify({ok:true,detail:'nftables TPROXY (TCP, UDP) with policy routing'}))})`;
  return () => ({ file: process.execPath, args: ['-e', script] });
}

/** The tunnel's events, fired by hand. */
function fakeTunnel() {
  const listeners: Record<string, ((value: unknown) => void)[]> = {};
  return {
    on: ((event: string, listener: (value: unknown) => void) => {
      (listeners[event] ??= []).push(listener);
      return () => undefined;
    }) as never,
    connected: () => listeners.state?.forEach((l) => l({ state: 'connected' } as ConnectionState)),
  };
}

const requests = (log: string) =>
  readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { op: string; ipv6?: string; plan?: { ipv6?: string } });

/** Lets the capture's queued operations run, then ends it (the helper is told `end`). */
const settle = async (capture: SystemWideCapture) => {
  await new Promise((resolve) => setTimeout(resolve, 50));
  await capture.end();
};

describe('IPv6 follows the server in the nftables capture', () => {
  const v4only = sampleServer('vmess', 'tcp', { id: 'v4', ipv6: false });
  const dual = sampleServer('vmess', 'tcp', { id: 'v6', ipv6: true });

  it('applied with the first server’s verdict; a switch to one that differs changes only the verdict; the same again, nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'syswide-ipv6-'));
    const log = join(dir, 'requests.log');
    const capture = new SystemWideCapture({ dataDir: dir, logger: quiet(), launch: recordingHelper(log), platform: 'linux', corePath: '/bin/true', coreCanCapture: async () => true });
    const tunnel = fakeTunnel();
    capture.bind(tunnel);
    capture.setMode('system-wide');
    const options = await capture.transparentFor(v4only);
    expect(options?.ipv6).toBe('block');
    tunnel.connected();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(capture.status().detail).toMatch(/IPv6 blocked \(refused at once, programs fall back to IPv4\): its subscription declares the server does not carry it/);

    expect((await capture.transparentFor(dual))?.ipv6).toBe('capture');
    tunnel.connected();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(capture.status().detail).toMatch(/IPv6 captured: its subscription declares the server carries it/);
    await capture.transparentFor(dual);
    tunnel.connected();
    await settle(capture);
    const ops = requests(log).map((r) => (r.op === 'apply' ? `apply ${r.plan?.ipv6}` : r.op === 'ipv6' ? `ipv6 ${r.ipv6}` : r.op));
    expect(ops).toEqual(['probe', 'apply block', 'ipv6 capture', 'end']);
  });

  it('what the monitor knows is asked, and a server of which nothing is known has IPv6 refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'syswide-ipv6-'));
    const log = join(dir, 'requests.log');
    const unknown = sampleServer('vmess', 'tcp', { id: 'unknown' });
    const capture = new SystemWideCapture({
      dataDir: dir,
      logger: quiet(),
      launch: recordingHelper(log),
      platform: 'linux',
      coreCanCapture: async () => true,
      serverIpv6: (server) => (server.id === 'verified' ? { supported: true, source: 'verified' } : null),
    });
    capture.setMode('system-wide');
    expect((await capture.transparentFor(unknown))?.ipv6).toBe('block');
    expect((await capture.transparentFor(sampleServer('vmess', 'tcp', { id: 'verified' })))?.ipv6).toBe('capture');
    await capture.end();
  });

  it('says when the monitor’s finding asks for another verdict than the one the capture in force started with', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'syswide-ipv6-'));
    const log = join(dir, 'requests.log');
    const server = sampleServer('vmess', 'tcp', { id: 'undeclared' });
    let found: boolean | null = null;
    const capture = new SystemWideCapture({
      dataDir: dir,
      logger: quiet(),
      launch: recordingHelper(log),
      platform: 'linux',
      coreCanCapture: async () => true,
      serverIpv6: () => (found === null ? null : { supported: found, source: 'verified' }),
    });
    const tunnel = fakeTunnel();
    capture.bind(tunnel);
    capture.setMode('system-wide');
    // Not applied yet: there is nothing to follow.
    found = true;
    expect(capture.ipv6Outdated(server)).toBe(false);
    found = null;
    expect((await capture.transparentFor(server))?.ipv6).toBe('block');
    tunnel.connected();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(capture.ipv6Outdated(server)).toBe(false);
    // The check answers after the core started: it carries IPv6.
    found = true;
    expect(capture.ipv6Outdated(server)).toBe(true);
    // Restarted on the same server, the new verdict is in force.
    expect((await capture.transparentFor(server))?.ipv6).toBe('capture');
    tunnel.connected();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(capture.ipv6Outdated(server)).toBe(false);
    // Found refused later (a cached finding that no longer holds): blocked again at the next start.
    found = false;
    expect(capture.ipv6Outdated(server)).toBe(true);
    await settle(capture);
    expect(capture.ipv6Outdated(server)).toBe(false);
  });
});
