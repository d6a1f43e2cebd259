import type { Server } from '../../shared/domain/server';
import type { ConnectionMode, SystemWideCaptureMethod } from '../../shared/settings';
import type { CoreCapture } from '../core/transparent';
import type { TunnelController } from '../tunnel/controller';
import type { CaptureStatus } from './capture';
import { CaptureRecordFile } from './record';
import type { SystemWideCapture } from './system-wide';

/** What system-wide mode is to the rest of the app (for-platform.ts's SystemWide). */
type Member = Pick<SystemWideCapture, 'setMode' | 'status' | 'directProxy' | 'onChange' | 'ipv6Outdated' | 'bind' | 'recoverAfterCrash' | 'end'> & {
  transparentFor(server?: Server, via?: Server): Promise<CoreCapture | null>;
};

/**
 * Linux's two captures behind one face: nftables TPROXY and sing-box's TUN, the one the settings
 * name. The choice is read before each core start (a change takes effect at the next connect or
 * restart of the core; the engine restarts the core when it changes while system-wide); the one
 * not chosen stays in proxy mode and so does nothing. Both follow the tunnel, and each acts only
 * while it holds a session.
 */
export class ChosenCapture implements Member {
  private mode: ConnectionMode = 'proxy';
  private current: SystemWideCaptureMethod;

  constructor(
    private readonly members: Record<SystemWideCaptureMethod, Member>,
    private readonly choice: () => SystemWideCaptureMethod,
    private readonly dataDir: string,
  ) {
    this.current = choice();
  }

  private get chosen(): Member {
    return this.members[this.current];
  }

  setMode(mode: ConnectionMode): void {
    this.mode = mode;
    this.chosen.setMode(mode);
  }

  status(): CaptureStatus {
    return this.chosen.status();
  }

  directProxy(): string | null {
    return this.chosen.directProxy();
  }

  onChange(listener: (status: CaptureStatus) => void): () => void {
    const offs = Object.values(this.members).map((member) => member.onChange(listener));
    return () => offs.forEach((off) => off());
  }

  async transparentFor(server?: Server, via?: Server): Promise<CoreCapture | null> {
    const wanted = this.choice();
    if (wanted !== this.current) {
      const previous = this.chosen;
      previous.setMode('proxy');
      await previous.end();
      this.current = wanted;
      this.chosen.setMode(this.mode);
    }
    return this.chosen.transparentFor(server, via);
  }

  ipv6Outdated(server: Server): boolean {
    return this.chosen.ipv6Outdated(server);
  }

  bind(tunnel: Pick<TunnelController, 'on'>): () => void {
    const offs = Object.values(this.members).map((member) => member.bind(tunnel));
    return () => offs.forEach((off) => off());
  }

  /**
   * The record names the capture that left it, and that one cleans up. An unreadable record goes
   * to the nftables capture's removal (which clears it); sing-box's rules, if any, are then seen
   * by the TUN capture's next start on a new record.
   */
  async recoverAfterCrash(): Promise<boolean> {
    const { record, unreadable } = await new CaptureRecordFile(this.dataDir).read();
    if (!record && !unreadable) return false;
    return this.members[record?.method === 'tun' ? 'tun' : 'tproxy'].recoverAfterCrash();
  }

  async end(): Promise<void> {
    await Promise.all(Object.values(this.members).map((member) => member.end()));
  }
}
