import { describe, expect, it } from 'vitest';
import { EngineRefusal, refusalCodeOf } from '../domain/refusal';
import { answerValue, refusalFromWire, refusalToWire } from './answer';

describe('a refusal across a transport', () => {
  it.each([
    ['an engine refusal keeps its code and words', new EngineRefusal('no-server-chosen', 'choose a server'), { error: 'choose a server', code: 'no-server-chosen' }],
    ['a plain error is its words alone', new Error('the monitor is not running'), { error: 'the monitor is not running' }],
    ['something thrown that is not an error is said as text', 'disk full', { error: 'disk full' }],
  ])('%s', (_label, thrown, wire) => {
    expect(refusalToWire(thrown)).toEqual(wire);
    // As JSON carries it, and back.
    const back = refusalFromWire(JSON.parse(JSON.stringify(wire)) as { error: string; code?: unknown });
    expect(back.message).toBe(wire.error);
    expect(refusalCodeOf(back)).toBe((wire as { code?: string }).code);
  });

  it.each([
    ['an older peer sends no code', { error: 'choose a server' }],
    ['a newer peer sends a code this build does not know', { error: 'the moon is in the way', code: 'moon-in-the-way' }],
    ['a code that is not a string', { error: 'odd', code: 7 }],
  ])('%s: the caller gets the words, without a code', (_label, wire) => {
    const error = refusalFromWire(wire);
    expect(error).not.toBeInstanceOf(EngineRefusal);
    expect(error.message).toBe(wire.error);
    expect(error).not.toHaveProperty('code');
  });

  it('an answer gives its value, or throws its refusal with the code', () => {
    expect(answerValue({ ok: true, value: { state: 'connected' } })).toEqual({ state: 'connected' });
    expect(() => answerValue({ ok: false, error: 'no subscription with id "x"', code: 'no-such-subscription' })).toThrow(
      expect.objectContaining({ code: 'no-such-subscription', message: 'no subscription with id "x"' }),
    );
  });
});
