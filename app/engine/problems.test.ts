import { describe, expect, it } from 'vitest';
import { memoryLogger } from '../log/logger';
import { SaveError } from '../storage/json-file';
import { FakeClock } from '../testing/fake-clock';
import { ProblemBoard } from './problems';

describe('ProblemBoard', () => {
  it('keeps problems until dismissed, one per key, and tells listeners', () => {
    const board = new ProblemBoard(new FakeClock(1000));
    const seen: number[] = [];
    board.onChange((list) => seen.push(list.length));
    board.add('startup:settings', 'settings.json was unreadable; the last good copy was used.');
    board.add('save:cache', 'first');
    board.add('save:cache', 'second');
    expect(board.list().map((p) => p.message)).toEqual(['settings.json was unreadable; the last good copy was used.', 'second']);
    board.dismiss(board.list()[0]!.id);
    board.dismiss('no-such-id');
    expect(board.list().map((p) => p.message)).toEqual(['second']);
    expect(seen).toEqual([1, 2, 2, 1]);
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
