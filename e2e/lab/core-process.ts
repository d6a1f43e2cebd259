/**
 * Starting a real core for the lab (a server host or one of the lab's own clients): launch it,
 * wait for its "started" line and for its TCP inbounds to accept, choose ports again if one was
 * taken meanwhile, and keep draining its output. Supervised: it cannot outlive the lab.
 */
import type { ChildProcess } from 'node:child_process';
import { stopSupervised } from '../../app/process/supervised';
import { accepts } from '../../app/tunnel/ports';

export interface RunningCore {
  ports: number[];
  pid: number;
  stop(): Promise<void>;
}

export const XRAY_STARTED = /Xray [\d.]+ started/;
export const V2RAY_STARTED = /V2Ray [\d.]+ started/;
/** Logged at info level: a sing-box the lab starts logs at info so the line is seen. */
export const SING_BOX_STARTED = /sing-box started/;

/** Starts a core (choosing its ports again if one was taken meanwhile) and waits until it serves. */
export async function startCore(
  name: string,
  launch: () => Promise<{ ports: number[]; tcp: number[]; child: ChildProcess; ready: RegExp }>,
  attempts = 3,
): Promise<RunningCore> {
  let lastError: Error | null = null;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const { ports, tcp, child, ready } = await launch();
    try {
      await waitUntilReady(name, child, ready, tcp);
      return { ports, pid: child.pid ?? 0, stop: () => stopSupervised(child) };
    } catch (error) {
      lastError = error as Error;
      await stopSupervised(child);
    }
  }
  throw lastError ?? new Error(`${name} did not start`);
}

async function waitUntilReady(name: string, child: ChildProcess, ready: RegExp, tcpPorts: number[], timeoutMs = 10_000): Promise<void> {
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const deadline = Date.now() + timeoutMs;
  while (!ready.test(output)) {
    if (exited) throw new Error(`${name} server exited while starting: ${output.trim()}`);
    if (Date.now() > deadline) throw new Error(`${name} server did not start within ${timeoutMs} ms: ${output.trim()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  for (const port of tcpPorts) if (!(await accepts(port))) throw new Error(`${name} inbound 127.0.0.1:${port} does not accept connections`);
  // Keep draining the pipes so a chatty core never blocks on a full pipe.
  child.stdout?.off('data', collect);
  child.stderr?.off('data', collect);
  child.stdout?.resume();
  child.stderr?.resume();
}
