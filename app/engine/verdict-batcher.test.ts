import { describe, expect, it } from 'vitest';
import { FakeClock } from '../testing/fake-clock';
import { VerdictBatcher } from './verdict-batcher';

function batcher(existing: string[] = ['a', 'b', 'c']) {
  const clock = new FakeClock(0);
  const sent: string[][] = [];
  const verdicts = new VerdictBatcher({ clock, windowMs: () => 500, exists: (id) => existing.includes(id), publish: (ids) => sent.push(ids) });
  return { clock, sent, verdicts };
}

describe('VerdictBatcher', () => {
  it('sends one message per burst, a debounce window after its first change', async () => {
    const { clock, sent, verdicts } = batcher();
    verdicts.note('a');
    await clock.advance(200);
    verdicts.note('b');
    verdicts.note('a');
    await clock.advance(299);
    expect(sent).toEqual([]);
    await clock.advance(1);
    expect(sent).toEqual([['a', 'b']]);
    verdicts.note('c');
    await clock.advance(500);
    expect(sent).toEqual([['a', 'b'], ['c']]);
  });

  it('leaves out servers removed meanwhile, and sends nothing when none is left', async () => {
    const { clock, sent, verdicts } = batcher(['a']);
    verdicts.note('gone');
    await clock.advance(500);
    verdicts.note('a');
    verdicts.note('gone');
    await clock.advance(500);
    expect(sent).toEqual([['a']]);
  });

  it('stopped, it sends nothing more', async () => {
    const { clock, sent, verdicts } = batcher();
    verdicts.note('a');
    verdicts.stop();
    await clock.advance(1000);
    expect(sent).toEqual([]);
  });
});
