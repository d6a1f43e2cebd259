import { describe, expect, it } from 'vitest';
import type { Problem } from '../../shared/domain/problem';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { FIRST_FORMAT } from '../storage/format';
import { JsonFile } from '../storage/json-file';
import { FakeClock } from '../testing/fake-clock';
import { ProblemBoard } from './problems';

describe('ProblemBoard', () => {
  const unreadable = (file: string): Problem => ({
    topic: { kind: 'file-unreadable', file, recovered: 'backup' },
    detail: `${file} was unreadable; it was set aside and the last good copy was used.`,
  });
  const saveFailed = (file: string, detail: string): Problem => ({ topic: { kind: 'save-failed', file }, detail });

  it('keeps problems until dismissed, one line per topic and file, and tells listeners', () => {
    const board = new ProblemBoard(new FakeClock(1000));
    const seen: number[] = [];
    board.onChange((list) => seen.push(list.length));
    board.raise(unreadable('settings.json'));
    board.raise(saveFailed('monitor-cache.json', 'first'), 'error');
    board.raise(saveFailed('monitor-cache.json', 'second'), 'error');
    // The same words about another file, or another kind of problem with the same file, are lines of their own.
    board.raise(saveFailed('subscriptions.json', 'second'), 'error');
    board.raise(saveFailed('settings.json', 'could not save settings.json'), 'error');
    expect(board.list().map((p) => [p.topic.kind, p.detail])).toEqual([
      ['file-unreadable', 'settings.json was unreadable; it was set aside and the last good copy was used.'],
      ['save-failed', 'second'],
      ['save-failed', 'second'],
      ['save-failed', 'could not save settings.json'],
    ]);
    board.dismiss(board.list()[0]!.id);
    board.dismiss('no-such-id');
    expect(board.list().map((p) => p.detail)).toEqual(['second', 'second', 'could not save settings.json']);
    expect(seen).toEqual([1, 2, 2, 3, 4, 3]);
  });

  it('keeps what was met at start apart, for a host that prints it', () => {
    const board = new ProblemBoard(new FakeClock(1000));
    board.raiseAtStart({ topic: { kind: 'no-core' }, detail: 'no v2ray or Xray core was found' });
    board.raise(saveFailed('subscriptions.json', 'the disk is full'), 'error');
    expect(board.atStart().map((p) => p.detail)).toEqual(['no v2ray or Xray core was found']);
    expect(board.list().map((p) => [p.severity, p.detail])).toEqual([
      ['warning', 'no v2ray or Xray core was found'],
      ['error', 'the disk is full'],
    ]);
  });

  it("keeps one line for system-wide capture's failures, the latest sentence its detail", () => {
    const board = new ProblemBoard(new FakeClock(1000));
    board.raise({ topic: { kind: 'system-wide' }, detail: 'the capture helper could not start' }, 'error');
    board.raise({ topic: { kind: 'system-wide' }, detail: 'nftables refused the rules' }, 'error');
    expect(board.list()).toEqual([{ id: 'p2', at: 1000, severity: 'error', topic: { kind: 'system-wide' }, detail: 'nftables refused the rules' }]);
  });

  it('withdraws a problem that is over (a test budget no longer spent), and only that one', () => {
    const board = new ProblemBoard(new FakeClock(1000));
    const seen: number[] = [];
    board.onChange((list) => seen.push(list.length));
    board.raise({ topic: { kind: 'no-core' }, detail: 'no core' });
    board.raise({ topic: { kind: 'test-budget', capBytesPerDay: 1e8 }, detail: 'spent' });
    board.withdraw({ kind: 'test-budget', capBytesPerDay: 1e8 });
    board.withdraw({ kind: 'test-budget', capBytesPerDay: 1e8 });
    expect(board.list().map((p) => p.topic.kind)).toEqual(['no-core']);
    expect(seen).toEqual([1, 2, 1]);
  });

  it('is the sink of a file that cannot be saved: the failure is on the board with no log line, one line per file', async () => {
    const board = new ProblemBoard(new FakeClock(1000));
    const dir = mkdtempSync(join(tmpdir(), 'problem-sink-'));
    const file = new JsonFile({ path: join(dir, 'subscriptions.json'), schema: z.object({ n: z.number() }), format: FIRST_FORMAT, fallback: () => ({ n: 0 }), problems: board });
    // A folder where the file must go: every save fails.
    mkdirSync(file.path);
    for (const n of [1, 2]) await expect(file.save({ n })).rejects.toThrow(/a folder is in the way/);
    expect(board.list()).toEqual([
      {
        id: 'p2',
        at: 1000,
        severity: 'error',
        topic: { kind: 'save-failed', file: 'subscriptions.json' },
        detail: "Could not save subscriptions.json (a folder is in the way). The app keeps working with what it has in memory; free some space or check the folder's permissions.",
      },
    ]);
  });
});
