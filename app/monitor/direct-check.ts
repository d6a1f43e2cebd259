/**
 * The connectivity check of spec/observatory.md: a direct request (no proxy) that tells "every
 * server failed" from "the network itself is down". Any HTTP answer counts as reachable.
 */
import { Agent, ProxyAgent, request } from 'undici';
import type { DirectCheck } from './ports';

export class HttpDirectCheck implements DirectCheck {
  /**
   * `directVia`: a loopback proxy that leaves the machine directly, when plain connections would
   * not (system-wide capture would send the check through the tunnel it is meant to judge).
   */
  constructor(private readonly directVia: () => string | null = () => null) {}

  async reachable(url: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    // A fresh agent with its own timeouts: a listener that accepts and never answers must not
    // hold the check past its deadline (nodejs/undici#3481-style hangs); the signal bounds it too.
    const via = this.directVia();
    const timeouts = { headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
    const agent = via ? new ProxyAgent({ uri: via, ...timeouts, connect: { timeout: timeoutMs } }) : new Agent({ connectTimeout: timeoutMs, ...timeouts });
    const deadline = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    try {
      // undici's request never follows redirects: a redirect is an answer too.
      const response = await request(url, { method: 'GET', dispatcher: agent, signal: combined });
      await response.body.dump().catch(() => undefined);
      return true;
    } catch {
      return false;
    } finally {
      void agent.close().catch(() => undefined);
    }
  }
}
