/**
 * The server list as the monitor sees it: read from the composition root's list when that list
 * changed (a new array), indexed by id, and the results of servers no longer in it dropped
 * (spec/observatory.md: results of removed servers are cleaned up).
 */
import type { Server, ServerId } from '../../shared/domain/server';
import { frontKey } from './policy/batch';
import type { ServerRecords } from './records';

export class ServerDirectory {
  private index = new Map<ServerId, Server>();
  private indexed: readonly Server[] | null = null;

  constructor(
    private readonly source: () => readonly Server[],
    private readonly records: ServerRecords,
  ) {}

  /** The servers in subscription order. */
  list(): readonly Server[] {
    this.refresh(false);
    return this.indexed ?? [];
  }

  ids(): ServerId[] {
    return this.list().map((s) => s.id);
  }

  /** The ids indexed now, without re-reading the list (what the cache may keep). */
  present(): ReadonlySet<ServerId> {
    return new Set(this.index.keys());
  }

  get(id: ServerId): Server | undefined {
    return this.index.get(id) ?? (this.refresh(false) ? this.index.get(id) : undefined);
  }

  name(id: ServerId): string {
    return this.get(id)?.name ?? id;
  }

  /** The front address a server dials (servers behind one front share its probe limit). */
  frontOf(id: ServerId): string {
    const server = this.get(id);
    return server ? frontKey(server.address) : `id:${id}`;
  }

  /** Re-reads the list when it changed (or when forced); drops results of removed servers. */
  refresh(force: boolean): boolean {
    const list = this.source();
    if (!force && list === this.indexed) return false;
    this.indexed = list;
    this.index = new Map(list.map((s) => [s.id, s]));
    this.records.prune(new Set(this.index.keys()));
    return true;
  }
}
