/**
 * The user's network as the lab sees it. When it is offline, every lab listener but the control
 * API blackholes connections from the user's address (new and existing); listeners subscribe to
 * re-check their connections when it changes.
 */
export class LabNetwork {
  private state: 'online' | 'offline' = 'online';
  private readonly listeners = new Set<() => void>();

  get offline(): boolean {
    return this.state === 'offline';
  }

  get current(): 'online' | 'offline' {
    return this.state;
  }

  set(state: 'online' | 'offline'): void {
    if (state === this.state) return;
    this.state = state;
    for (const listener of this.listeners) listener();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
