import { describe, expect, it } from 'vitest';
import type { Problem } from '../../shared/domain/problem';
import { memoryLogger } from '../log/logger';
import { SaveError } from '../storage/json-file';
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
    expect(board.list().map((p) => [p.topic?.kind, p.message])).toEqual([
      ['file-unreadable', 'settings.json was unreadable; it was set aside and the last good copy was used.'],
      ['save-failed', 'second'],
      ['save-failed', 'second'],
      ['save-failed', 'could not save settings.json'],
    ]);
    board.dismiss(board.list()[0]!.id);
    board.dismiss('no-such-id');
    expect(board.list().map((p) => p.message)).toEqual(['second', 'second', 'could not save settings.json']);
    expect(seen).toEqual([1, 2, 2, 3, 4, 3]);
  });

  it('keeps what was met at start apart, for a host that prints it', () => {
    const board = new ProblemBoard(new FakeClock(1000));
    board.raiseAtStart({ topic: { kind: 'no-core' }, detail: 'no v2ray or Xray core was found' });
    board.raise(saveFailed('subscriptions.json', 'the disk is full'), 'error');
    expect(board.atStart().map((p) => p.detail)).toEqual(['no v2ray or Xray core was found']);
    expect(board.list().map((p) => [p.severity, p.message])).toEqual([
      ['warning', 'no v2ray or Xray core was found'],
      ['error', 'the disk is full'],
    ]);
  });

  it("keeps one line for system-wide capture's failures, the latest sentence its detail", () => {
    const board = new ProblemBoard(new FakeClock(1000));
    board.raise({ topic: { kind: 'system-wide' }, detail: 'the capture helper could not start' }, 'error');
    board.raise({ topic: { kind: 'system-wide' }, detail: 'nftables refused the rules' }, 'error');
    expect(board.list()).toEqual([{ id: 'p2', at: 1000, severity: 'error', message: 'nftables refused the rules', topic: { kind: 'system-wide' } }]);
  });

  it('withdraws a problem that is over (a test budget no longer spent), and only that one', () => {
    const board = new ProblemBoard(new FakeClock(1000));
    const seen: number[] = [];
    board.onChange((list) => seen.push(list.length));
    board.raise({ topic: { kind: 'no-core' }, detail: 'no core' });
    board.raise({ topic: { kind: 'test-budget', capBytesPerDay: 1e8 }, detail: 'spent' });
    board.withdraw({ kind: 'test-budget', capBytesPerDay: 1e8 });
    board.withdraw({ kind: 'test-budget', capBytesPerDay: 1e8 });
    expect(board.list().map((p) => p.topic?.kind)).toEqual(['no-core']);
    expect(seen).toEqual([1, 2, 1]);
  });

  it('puts a failed save reported in the log on the board, one line per file', () => {
    const board = new ProblemBoard(new FakeClock(1000));
    const { logger } = memoryLogger('info');
    logger.addSink(board.saveFailures());
    const diskFull = new SaveError('/home/u/.config/steadfast-vpn/subscriptions.json', Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' }));
    logger.error('SUBSCRIPTIONS', diskFull.message, diskFull.problem);
    logger.error('SUBSCRIPTIONS', diskFull.message, diskFull.problem);
    // The same words without the problem are just a line: nothing reads sentences back.
    logger.error('SUBSCRIPTIONS', diskFull.message);
    logger.info('ENGINE', 'saved fine');
    expect(board.list()).toEqual([
      {
        id: 'p2',
        at: 1000,
        severity: 'error',
        message: 'Could not save subscriptions.json (the disk is full). The app keeps working with what it has in memory; free some space or check the folder\'s permissions.',
        topic: { kind: 'save-failed', file: 'subscriptions.json' },
      },
    ]);
  });
});
