import { cleanup } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { TransferTest } from '../../../shared/domain/transfer';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { TransferField } from './TransferField';

const NOW = Date.UTC(2026, 5, 17, 12);
const measured: TransferTest = { verdict: 'ok', at: NOW, bytes: 65_536, expectedBytes: 65_536, bytesPerSecond: 65_536_000, fragment: false, detail: '65536 bytes in 1 ms', fromCache: false };

describe('the transfer test’s measured line', () => {
  afterEach(cleanup);

  it.each([
    ['en', '65.5 kB in 1 ms'],
    ['fa', '۶۵٫۵ kB در ۱ میلی‌ثانیه'],
  ] as const)('says what was measured in %s, not in the engine’s English', (language, text) => {
    const { container } = renderWithStore(
      <dl>
        <TransferField test={measured} />
      </dl>,
      sampleSnapshot(NOW),
      { language },
    );
    expect(container.querySelector('small')?.textContent).toBe(text);
    expect(container.textContent).not.toContain('bytes in');
  });

  it.each([
    ['en', 16_000, '16 kB of 65.5 kB, then nothing for 2 s'],
    ['zh', 16_000, '65.5 kB 中收到 16 kB，随后 2 秒无数据'],
    ['ru', 0, 'данные так и не пришли, хотя соединение оставалось открытым'],
  ] as const)('says in %s what a frozen test saw (%i bytes before the silence), not in the engine’s English', (language, bytes, text) => {
    const frozen: TransferTest = { ...measured, verdict: 'freezes', bytes, bytesPerSecond: null, detail: `${bytes} of 65536 bytes, then nothing for 2 s` };
    const { container } = renderWithStore(
      <dl>
        <TransferField test={frozen} />
      </dl>,
      sampleSnapshot(NOW),
      { language },
    );
    expect(container.querySelector('small')?.textContent).toBe(text);
  });

  it('a failure keeps the engine’s words for why', () => {
    const { container } = renderWithStore(
      <dl>
        <TransferField test={{ ...measured, verdict: 'failed', bytes: 0, bytesPerSecond: null, detail: 'the connection was reset' }} />
      </dl>,
      sampleSnapshot(NOW),
    );
    expect(container.querySelector('small')?.textContent).toBe('the connection was reset');
  });
});
