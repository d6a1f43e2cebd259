/**
 * System-wide capture follows what becomes known of the current server's IPv6. The capture
 * decides before the core starts (app/system-wide/policy/ipv6-capture.ts: the subscription's
 * declaration, else the monitor's finding, else refused); the monitor's IPv6 check may answer
 * after that — the first connection to a server it has not checked yet, or a cached finding this
 * run's check contradicts. Then the tunnel restarts on the same server, so the capture and the
 * core's config take the verdict the finding asks for: a server found to carry IPv6 gets it, one
 * found to refuse it stops being handed connections it can only fail.
 */
import type { Server, ServerId } from '../../shared/domain/server';
import type { ServerStatus } from '../../shared/domain/status';
import type { Logger } from '../log/logger';

export interface Ipv6FollowDeps {
  subscribe(listener: (statuses: ServerStatus[]) => void): () => void;
  capture: { ipv6Outdated(server: Server): boolean };
  /** The server the tunnel carries now, when connected. */
  current(): ServerId | null;
  server(id: ServerId): Server | undefined;
  /** Restarts the tunnel on the same server. */
  reconnect(): Promise<void>;
  logger: Logger;
}

export function followServerIpv6(deps: Ipv6FollowDeps): () => void {
  let restarting = false;
  return deps.subscribe((statuses) => {
    const id = deps.current();
    if (restarting || id === null || !statuses.some((status) => status.serverId === id)) return;
    const server = deps.server(id);
    if (!server || !deps.capture.ipv6Outdated(server)) return;
    restarting = true;
    deps.logger.info('SYSWIDE', `what is known of ${server.name}'s IPv6 changed after its core started: restarting on the same server to follow it`);
    void deps
      .reconnect()
      .catch((error: unknown) => deps.logger.error('SYSWIDE', `could not restart to follow the server's IPv6: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => (restarting = false));
  });
}
