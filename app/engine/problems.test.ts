import { describe, expect, it } from 'vitest';
import { memoryLogger } from '../log/logger';
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

  it('turns a failed save in the log into a problem the user can read', () => {
    const board = new ProblemBoard(new FakeClock(1000));
    const { logger } = memoryLogger('info');
    logger.addSink(board.saveFailures());
    logger.error('SUBSCRIPTIONS', 'could not save /home/u/.config/steadfast-vpn/subscriptions.json: the disk is full');
    logger.error('SUBSCRIPTIONS', 'could not save /home/u/.config/steadfast-vpn/subscriptions.json: the disk is full');
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
