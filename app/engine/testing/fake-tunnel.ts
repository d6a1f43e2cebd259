import type { ConnectionState } from '../../../shared/domain/connection';
import type { Server, ServerId } from '../../../shared/domain/server';
import { Emitter } from '../../events';
import type { TunnelEvents } from '../../tunnel/controller';
import type { TunnelOperations } from '../tunnel-driver';

const DOWN: ConnectionState = { state: 'disconnected', serverId: null, httpProxy: null, socksProxy: null, since: null, error: null, core: null };

/**
 * A tunnel without a core: connects at once (or fails with `refuse`), counts its core starts and
 * publishes the controller's events for the engine to forward.
 */
export class FakeTunnel implements TunnelOperations {
  /** Every core start, in order, with the upstream of a chained server. */
  readonly starts: { serverId: ServerId; via?: ServerId }[] = [];
  /** The next connect fails with these words. */
  refuse: string | null = null;
  private current: ConnectionState = DOWN;
  private readonly emitter = new Emitter<TunnelEvents>();

  async connect(server: Server, via?: Server): Promise<ConnectionState> {
    this.starts.push(via ? { serverId: server.id, via: via.id } : { serverId: server.id });
    if (this.refuse) {
      const error = this.refuse;
      this.refuse = null;
      this.set({ ...DOWN, state: 'failed', serverId: server.id, error });
      throw new Error(error);
    }
    this.set({ ...DOWN, state: 'connected', serverId: server.id, httpProxy: 'http://127.0.0.1:10809', socksProxy: 'socks5://127.0.0.1:10808', since: 1 });
    return this.current;
  }

  async disconnect(): Promise<void> {
    this.set(DOWN);
  }

  state(): ConnectionState {
    return this.current;
  }

  on<K extends keyof TunnelEvents>(event: K, listener: (payload: TunnelEvents[K]) => void): () => void {
    return this.emitter.on(event, listener);
  }

  /** Publishes an event as the controller would. */
  emit<K extends keyof TunnelEvents>(event: K, payload: TunnelEvents[K]): void {
    if (event === 'state') this.current = payload as ConnectionState;
    this.emitter.emit(event, payload);
  }

  private set(state: ConnectionState): void {
    this.current = state;
    this.emitter.emit('state', state);
  }
}
