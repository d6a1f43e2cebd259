/**
 * A window's first frame, made while its page loads. The page asks for the snapshot only once its
 * code runs and its socket opens, some hundreds of milliseconds after it asked for the document;
 * with 5,000 servers the snapshot then took the engine another 60–300 ms of a machine busy with
 * the page, while the page waited. So the request for the document starts it, and the socket
 * that opens next takes it, when it still is what a window would be sent then: no event has gone
 * out since it was begun (a window that connects later gets only the events after its frame),
 * and it is at most `maxAgeMs` old (a verdict's freshness moves with time). Otherwise the socket
 * gets a frame made for it, as before.
 */
export class SnapshotPrefetch {
  private eventsSent = 0;
  private prepared: { frame: Promise<string>; eventsSent: number; at: number } | null = null;

  constructor(
    private readonly make: () => Promise<string>,
    private readonly maxAgeMs = 2000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** An event went out to the windows: a frame begun before it is older than a new window may be sent. */
  eventSent(): void {
    this.eventsSent += 1;
  }

  /**
   * A window's page was asked for: its frame is made after this turn (the document's answer goes
   * out first). Once for any number of pages asked for at once.
   */
  prepare(): void {
    if (this.current()) return;
    const frame = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.make());
    // Its failure is the taker's to report; a frame nobody takes fails unheard.
    frame.catch(() => undefined);
    this.prepared = { frame, eventsSent: this.eventsSent, at: this.now() };
  }

  /** The frame for a window that has just connected: the prepared one while it is current, else a new one. */
  take(): Promise<string> {
    const prepared = this.current();
    this.prepared = null;
    return prepared ? prepared.frame : this.make();
  }

  private current(): { frame: Promise<string> } | null {
    const prepared = this.prepared;
    return prepared && prepared.eventsSent === this.eventsSent && this.now() - prepared.at <= this.maxAgeMs ? prepared : null;
  }
}
