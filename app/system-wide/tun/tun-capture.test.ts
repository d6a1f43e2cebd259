import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectionState } from '../../../shared/domain/connection';
import { Emitter } from '../../events';
import { Logger } from '../../log/logger';
import type { TunnelEvents } from '../../tunnel/controller';
import { sampleServer } from '../../core/samples';
import { CaptureRecordFile } from '../record';
import { fakeElevation, type FakeElevation } from './testing/fake-elevation';
import { FATAL_LINE, fakeSingBox, type FakeSingBox } from './testing/fake-sing-box';
import { TunCapture } from './tun-capture';
import { tunFiles } from './tun-session';
import { processAlive } from '../../process/alive';
import { waitFor } from '../../testing/wait';

const quiet = () => new Logger({ level: 'error', sinks: [] });
const state = (name: ConnectionState['state'], socksPort = 10808): ConnectionState => ({
  state: name,
  serverId: name === 'disconnected' ? null : 'server-a',
  httpProxy: name === 'connected' ? 'http://127.0.0.1:10809' : null,
  socksProxy: name === 'connected' ? `socks5://127.0.0.1:${socksPort}` : null,
  since: null,
  error: null,
  core: null,
});

const captures: TunCapture[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(captures.splice(0).map((capture) => capture.end()));
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

interface World {
  capture: TunCapture;
  host: FakeElevation;
  engine: FakeSingBox;
  tunnel: Emitter<TunnelEvents>;
  dataDir: string;
  runtimeDir: string;
  corePath: string;
}

function world(o: { platform?: 'win32' | 'darwin'; engine?: FakeSingBox; host?: FakeElevation; dataDir?: string; path?: string } = {}): World {
  const engine = o.engine ?? fakeSingBox();
  const dataDir = o.dataDir ?? mkdtempSync(join(tmpdir(), 'tun-capture-'));
  const runtimeDir = join(dataDir, 'runtime');
  // The core as the user's settings name it, through a link: sing-box sees the real path.
  const corePath = join(dataDir, 'core-link');
  if (!existsSync(corePath)) symlinkSync('/bin/true', corePath);
  const host = o.host ?? fakeElevation();
  const capture = new TunCapture({
    platform: o.platform ?? 'darwin',
    dataDir,
    runtimeDir,
    logger: quiet(),
    search: { platform: 'darwin', env: { PATH: o.path ?? engine.dir } },
    corePath,
    host,
    watchIntervalMs: 100,
  });
  captures.push(capture);
  const tunnel = new Emitter<TunnelEvents>();
  capture.bind(tunnel);
  capture.setMode('system-wide');
  return { capture, host, engine, tunnel, dataDir, runtimeDir, corePath };
}

/** What the tunnel does on connect: ask first, then report the core up. */
async function connect(w: World, socksPort = 10808): Promise<void> {
  await w.capture.transparentFor();
  w.tunnel.emit('state', state('connected', socksPort));
  await waitFor('w.capture.status().active || w.capture.status().error !== null', () => w.capture.status().active || w.capture.status().error !== null, 8000, 25);
}

const coreExit = { at: 0, serverId: 'server-a', description: 'exited (SIGKILL)', attempt: 1, restartInMs: 200 };

describe('system-wide mode on macOS through sing-box', () => {
  it('connect: one dialog, sing-box on a 0600 config aimed at the core’s SOCKS5 port, the core’s real path sent direct', async () => {
    const w = world();
    await connect(w, 10808);
    expect(w.capture.status()).toMatchObject({ active: true, method: 'tun', error: null });
    expect(w.capture.status().detail).toContain("into the core's SOCKS5 127.0.0.1:10808");
    expect(w.host.commands).toHaveLength(1);
    const files = tunFiles(w.runtimeDir, w.engine.path);
    expect(statSync(files.configPath).mode & 0o777).toBe(0o600);
    const config = JSON.parse(readFileSync(files.configPath, 'utf8'));
    expect(config.outbounds[0]).toMatchObject({ type: 'socks', server: '127.0.0.1', server_port: 10808 });
    expect(config.route.rules[0]).toEqual({ process_path: [realpathSync('/bin/true')], outbound: 'direct' });
    expect(w.engine.runs()).toEqual([expect.objectContaining({ config: files.configPath })]);
    expect(w.capture.directProxy()).toBe(`http://127.0.0.1:${config.inbounds[1].listen_port}`);
    expect((await new CaptureRecordFile(w.dataDir).read()).record).toMatchObject({ method: 'tun', port: 10808 });
  });

  it('an Auto switch keeps the TUN: the core restarts on the same SOCKS port, sing-box runs on, no dialog', async () => {
    const w = world();
    await connect(w);
    w.tunnel.emit('state', state('connecting'));
    await w.capture.transparentFor();
    w.tunnel.emit('state', state('connected'));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(w.engine.runs()).toHaveLength(1);
    expect(processAlive(w.engine.runs()[0]!.pid)).toBe(true);
    expect(w.host.commands).toHaveLength(1);
    expect(w.capture.status().active).toBe(true);
  });

  it('an Auto switch to a server that differs in carrying IPv6 restarts sing-box on rules that follow it, without a dialog', async () => {
    const w = world();
    const reject6 = { ip_version: 6, action: 'reject' };
    const rules = () => JSON.parse(readFileSync(tunFiles(w.runtimeDir, w.engine.path).configPath, 'utf8')).route.rules as unknown[];
    await w.capture.transparentFor(sampleServer('vmess', 'tcp', { ipv6: false }));
    w.tunnel.emit('state', state('connected'));
    await waitFor('w.capture.status().active', () => w.capture.status().active, 8000, 25);
    expect(rules()).toContainEqual(reject6);
    expect(w.capture.status().detail).toMatch(/IPv6 blocked/);
    await w.capture.transparentFor(sampleServer('vmess', 'tcp', { ipv6: true }));
    w.tunnel.emit('state', state('connected'));
    await waitFor('w.engine.runs().length === 2 && IPv6 captured', () => w.engine.runs().length === 2 && w.capture.status().detail?.includes('IPv6 captured') === true, 8000, 25);
    expect(rules()).not.toContainEqual(reject6);
    expect(w.host.commands).toHaveLength(1);
  });

  it('a new SOCKS port restarts sing-box on a new config, still without a dialog', async () => {
    const w = world();
    await connect(w, 10808);
    w.tunnel.emit('state', state('connected', 20808));
    await waitFor('w.engine.runs().length === 2 && w.capture.status().detail?.includes(\':20808\') === true', () => w.engine.runs().length === 2 && w.capture.status().detail?.includes(':20808') === true, 8000, 25);
    expect(processAlive(w.engine.runs()[0]!.pid)).toBe(false);
    expect(w.host.commands).toHaveLength(1);
  });

  it('the core dies: sing-box stops at once (traffic goes direct), and comes back with the restarted core, no dialog', async () => {
    const w = world();
    await connect(w);
    const first = w.engine.runs()[0]!.pid;
    w.tunnel.emit('coreExit', coreExit);
    await waitFor('!w.capture.status().active && !processAlive(first)', () => !w.capture.status().active && !processAlive(first), 8000, 25);
    expect(w.capture.directProxy()).toBeNull();
    await w.capture.transparentFor();
    w.tunnel.emit('state', state('connected'));
    await waitFor('w.capture.status().active', () => w.capture.status().active, 8000, 25);
    expect(w.engine.runs()).toHaveLength(2);
    expect(w.host.commands).toHaveLength(1);
  });

  it('disconnect stops sing-box and its watchdog and drops the record', async () => {
    const w = world();
    await connect(w);
    const engine = w.engine.runs()[0]!.pid;
    const files = tunFiles(w.runtimeDir, w.engine.path);
    const watchdog = Number(readFileSync(files.watchdogPidFile, 'utf8'));
    w.tunnel.emit('state', state('disconnected'));
    await w.capture.end();
    expect(processAlive(engine)).toBe(false);
    expect(processAlive(watchdog)).toBe(false);
    expect(w.capture.status()).toMatchObject({ active: false, error: null });
    expect((await new CaptureRecordFile(w.dataDir).read()).record).toBeNull();
    expect(existsSync(files.configPath)).toBe(false);
  });

  it('disconnect while sing-box is still coming up stops it at once, without waiting for it or calling it a failure', async () => {
    const w = world();
    w.engine.behave('silent');
    await w.capture.transparentFor();
    w.tunnel.emit('state', state('connected'));
    await waitFor('w.engine.runs().length === 1', () => w.engine.runs().length === 1, 8000, 25);
    const started = Date.now();
    w.tunnel.emit('state', state('disconnected'));
    await w.capture.end();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(processAlive(w.engine.runs()[0]!.pid)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(w.capture.status()).toEqual({ active: false, method: null, detail: null, error: null });
  });

  it('the watchdog stops sing-box when the app is gone, and the app would say so', async () => {
    const app = spawn('sleep', ['60']);
    children.push(app);
    const w = world({ host: fakeElevation(app.pid!) });
    await connect(w);
    const engine = w.engine.runs()[0]!.pid;
    app.kill('SIGKILL');
    await waitFor('!processAlive(engine)', () => !processAlive(engine), 8000, 25);
    await waitFor('w.capture.status().error !== null', () => w.capture.status().error !== null, 8000, 25);
    expect(w.capture.status().active).toBe(false);
  });

  it('sing-box failing to bring its device up is shown in its own words', async () => {
    const w = world();
    w.engine.behave('fatal');
    await connect(w);
    expect(w.capture.status().active).toBe(false);
    expect(w.capture.status().error).toContain(FATAL_LINE);
  });

  it('saying no to the dialog fails the connection, saying why, and leaves nothing behind', async () => {
    const w = world();
    w.host.answer = 'no';
    await expect(w.capture.transparentFor()).rejects.toThrow('administrator rights were not granted');
    expect(existsSync(tunFiles(w.runtimeDir, w.engine.path).controlFile)).toBe(false);
    expect(w.engine.runs()).toEqual([]);
  });

  it('in the proxy modes nothing is asked and nothing runs', async () => {
    const w = world();
    w.capture.setMode('system-proxy');
    expect(await w.capture.transparentFor()).toBeNull();
    expect(w.host.commands).toEqual([]);
  });
});

describe('what sing-box must be', () => {
  it('missing: the connection fails naming where it was looked for, before any dialog', async () => {
    const w = world({ path: mkdtempSync(join(tmpdir(), 'empty-path-')) });
    await expect(w.capture.transparentFor()).rejects.toThrow(/needs the TUN engine sing-box, and none was found in PATH: reinstall the app/);
    expect(w.host.commands).toEqual([]);
  });

  it('too old for the config this app writes: refused with its version', async () => {
    const w = world({ engine: fakeSingBox('sing-box version 1.11.4\n\nEnvironment: go1.23.1 darwin/arm64') });
    await expect(w.capture.transparentFor()).rejects.toThrow(/sing-box 1\.11\.4 is too old for the TUN front end .* 1\.12\.0 or later/);
    expect(w.host.commands).toEqual([]);
  });

  it('something else under its name: refused with what it printed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'not-sing-box-'));
    writeFileSync(join(dir, 'sing-box'), '#!/bin/sh\necho "Xray 26.3.27 (Xray, Penetrates Everything.)"\n', { mode: 0o755 });
    const w = world({ path: dir });
    await expect(w.capture.transparentFor()).rejects.toThrow(/is not sing-box; it printed: Xray 26\.3\.27/);
  });
});

describe('Windows: the UAC prompt', () => {
  it('answered No: the connection fails saying administrator rights were not granted', async () => {
    const w = world({ platform: 'win32' });
    w.host.answer = 'no';
    await expect(w.capture.transparentFor()).rejects.toThrow('administrator rights were not granted');
    expect(w.host.commands[0]!.file).toBe('powershell.exe');
  });

  it('PowerShell failing for another reason: its words', async () => {
    const w = world({ platform: 'win32' });
    w.host.windowsOutcome = { code: 1, stderr: 'This command cannot be run due to the error: The system cannot find the file specified.' };
    await expect(w.capture.transparentFor()).rejects.toThrow(/could not be started with administrator rights \(exit 1: This command cannot be run/);
  });
});

describe('after a crash', () => {
  async function leftover(dataDir: string, program: string, args: string[]) {
    const runtimeDir = join(dataDir, 'runtime');
    const files = tunFiles(runtimeDir, '');
    const child = spawn(program, args, { stdio: 'ignore' });
    children.push(child);
    writeFileSync(files.enginePidFile, `${child.pid}\n`);
    await new CaptureRecordFile(dataDir).save({ version: 1, appliedAt: Date.now(), method: 'tun', port: 10808, helperPid: 99999 });
    return { child, files };
  }

  it('a sing-box whose watchdog was killed with the app is stopped at the next start, and the record goes', async () => {
    const w = world();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(w.runtimeDir, { recursive: true });
    const files = tunFiles(w.runtimeDir, '');
    writeFileSync(files.configPath, JSON.stringify({ inbounds: [{ type: 'mixed', listen: '127.0.0.1', listen_port: 0 }] }));
    const { child } = await leftover(w.dataDir, w.engine.path, ['run', '-c', files.configPath]);
    await waitFor('w.engine.runs().length === 1', () => w.engine.runs().length === 1, 8000, 25);
    expect(await w.capture.recoverAfterCrash()).toBe(true);
    await waitFor('!processAlive(child.pid!) || child.exitCode !== null || child.signalCode !== null', () => !processAlive(child.pid!) || child.exitCode !== null || child.signalCode !== null, 8000, 25);
    expect(w.host.commands).toHaveLength(1);
    expect((await new CaptureRecordFile(w.dataDir).read()).record).toBeNull();
    expect(existsSync(files.enginePidFile)).toBe(false);
  });

  it('a pid taken since by another program is left alone', async () => {
    const w = world();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(w.runtimeDir, { recursive: true });
    const { child } = await leftover(w.dataDir, 'sleep', ['60']);
    expect(await w.capture.recoverAfterCrash()).toBe(true);
    expect(child.exitCode).toBeNull();
    expect(processAlive(child.pid!)).toBe(true);
  });

  it('a record whose watchdog already stopped sing-box is only cleared: no dialog', async () => {
    const w = world();
    await new CaptureRecordFile(w.dataDir).save({ version: 1, appliedAt: Date.now(), method: 'tun', port: 10808, helperPid: 99999 });
    expect(await w.capture.recoverAfterCrash()).toBe(true);
    expect(w.host.commands).toEqual([]);
    expect(await w.capture.recoverAfterCrash()).toBe(false);
  });
});
