/** An `AUTO` log line for each decision: what happened and why, in a sentence a user can follow. */
import type { AutoDecision } from '../../shared/domain/auto';

const TRANSFER_NOTES = {
  none: '',
  freezes: ', but its transfer test freezes: counted as not answering',
  throttled: ', throttled (its transfer test is slow)',
} as const;

/** "traffic freezes after 16 KB on A1" (the bytes that came before the silence, in whole KB). */
function transferSaw(t: { server: string; verdict: 'freezes' | 'throttled'; bytes: number }): string {
  return t.verdict === 'freezes' ? `traffic freezes after ${Math.round(t.bytes / 1024)} KB on ${t.server}` : `traffic on ${t.server} is throttled below 32 KB/s`;
}

export function describeDecision(d: AutoDecision): string {
  switch (d.type) {
    case 'check':
      return `check (${d.trigger}${d.failure ? `: ${d.failure}` : ''}${d.transfer ? `: ${transferSaw(d.transfer)}` : ''}): probing ${d.probe.join(', ') || 'nothing'}${d.inHand?.length ? `; answers in hand: ${d.inHand.map((a) => `${a.id} ${a.delay} ms (${(a.ageMs / 1000).toFixed(1)} s ago)`).join(', ')}` : ''}`;
    case 'prepare':
      return `stalled for half the threshold: probing ${d.probe.join(', ') || 'nothing'} ahead of a check`;
    case 'probe-result':
      return `probe ${d.id}: ${d.delay === null ? 'no answer' : `${d.delay} ms`}${TRANSFER_NOTES[d.transfer ?? 'none']}${d.recorded ? '' : ' (not recorded)'}`;
    case 'stay': {
      const extra = d as AutoDecision & { candidate?: string; answers?: number; needed?: number };
      const detail = extra.candidate ? ` (${extra.candidate} answered ${extra.answers} of ${extra.needed})` : '';
      return `stay on ${d.id}: ${d.reason}${detail}`;
    }
    case 'switch':
      return `switch ${d.from ?? '(none)'} → ${d.to}: ${d.reason}`;
    case 'network-lost':
      return `network lost (attempt ${d.attempt}): staying, nothing recorded, next try in ${d.next_in_ms / 1000} s`;
    case 'rate-limited':
      return `a switch was due but 3 switches happened in 3 minutes: waiting until ${new Date(d.until).toISOString()}`;
    case 'pause':
      return `a check was due but ${d.reason} holds it until ${new Date(d.until).toISOString()}`;
    case 'settings':
      return `settings changed: a stall counts after ${d.stallThresholdMs / 1000} s, a probe waits ${d.probeTimeoutMs / 1000} s`;
  }
}
