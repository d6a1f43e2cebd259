import { describe, expect, it } from 'vitest';
import type { ServerId } from '../../shared/domain/server';
import type { TestKind, ByteCount } from '../../shared/domain/test-traffic';
import { countedProber } from './counted-prober';
import type { ServerProber } from './ports';
import type { TransferCourse } from './policy/transfer';
import { fakeServer } from './testing/harness';

/** A prober whose every download ends as `course`. */
const downloading = (course: TransferCourse) => ({ download: async () => course }) as unknown as ServerProber;

async function downBytes(course: TransferCourse): Promise<number> {
  const added: ByteCount[] = [];
  const ledger = { add: (_id: ServerId, _kind: TestKind, bytes: ByteCount) => void added.push(bytes) };
  const prober = countedProber(downloading(course), ledger, 'speed-test', (id) => fakeServer(id));
  await prober.download('a', { url: 'http://127.0.0.1:9/download?bytes=1000000', maxBytes: 1_000_000, headersTimeoutMs: 1, stallMs: 1, deadlineMs: 1 });
  return added.reduce((sum, b) => sum + b.down, 0);
}

describe('the counted download', () => {
  it('counts what a download cut short brought before it ended, as spent', async () => {
    const whole = await downBytes({ kind: 'complete', status: 200, bytes: 1_000_000, headersMs: 5, bodyMs: 100 });
    const cut = await downBytes({ kind: 'error', error: { kind: 'unknown', message: 'cancelled' }, bytes: 400_000 });
    const none = await downBytes({ kind: 'error', error: { kind: 'refused', message: 'refused' } });
    expect(whole).toBeGreaterThan(1_000_000);
    expect(cut).toBeGreaterThan(400_000);
    expect(cut).toBeLessThan(whole);
    expect(none).toBe(0);
  });
});
