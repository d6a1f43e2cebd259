import { describe, expect, it } from 'vitest';
import { Logger, type LogRecord } from '../log/logger';
import { FakeClock } from '../testing/fake-clock';
import { ImportInbox, MAX_PENDING_IMPORTS } from './inbox';

const LINK = `v2rayn://install-sub?url=${encodeURIComponent('https://panel.example.com/sub/SECRET-TOKEN')}&name=Mine`;

function inbox(): { box: ImportInbox; lines: string[] } {
  const lines: string[] = [];
  const logger = new Logger({ sinks: [(record: LogRecord) => lines.push(record.message)] });
  return { box: new ImportInbox(new FakeClock(1_000), logger), lines };
}

describe('the import inbox', () => {
  it('holds a link until the user answers, announcing the whole list each time', () => {
    const { box } = inbox();
    const seen: number[] = [];
    box.onChange((list) => seen.push(list.length));
    const request = box.offerLink(LINK);
    expect(box.list()).toEqual([request]);
    expect(request).toMatchObject({ source: 'v2rayn', name: 'Mine', receivedAt: 1_000, target: { kind: 'subscription' } });
    box.dismiss(request.id);
    expect(box.list()).toEqual([]);
    expect(seen).toEqual([1, 0]);
  });

  it('asks once for the same link twice, and keeps at most the latest few', () => {
    const { box } = inbox();
    box.offerLink(LINK);
    box.offerLink(LINK);
    expect(box.list()).toHaveLength(1);
    for (let i = 0; i < MAX_PENDING_IMPORTS + 5; i++) box.offerLink(`steadfast://install-sub?url=https%3A%2F%2Fp${i}.example.com%2Fs`);
    expect(box.list()).toHaveLength(MAX_PENDING_IMPORTS);
    expect(box.list().at(-1)?.target).toEqual({ kind: 'subscription', url: `https://p${MAX_PENDING_IMPORTS + 4}.example.com/s` });
  });

  it('logs the provider host, never the token in the path', () => {
    const { box, lines } = inbox();
    box.offerLink(LINK);
    expect(lines.join('\n')).toContain('panel.example.com');
    expect(lines.join('\n')).not.toContain('SECRET-TOKEN');
  });
});
