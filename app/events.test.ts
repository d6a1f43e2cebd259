import { describe, expect, it } from 'vitest';
import { Emitter, Signal } from './events';

describe('Signal', () => {
  it('a listener that throws is reported and the others still hear the event', () => {
    const errors: string[] = [];
    const signal = new Signal<number>('settings', (error, event) => errors.push(`${event}: ${(error as Error).message}`));
    const heard: number[] = [];
    signal.on(() => {
      throw new Error('broken subscriber');
    });
    signal.on((n) => heard.push(n));
    expect(() => signal.emit(7)).not.toThrow();
    expect(heard).toEqual([7]);
    expect(errors).toEqual(['settings: broken subscriber']);
  });

  it('unsubscribes, and an emit reaches those subscribed when it began', () => {
    const signal = new Signal<string>('x', () => undefined);
    const heard: string[] = [];
    let off = () => undefined as void;
    signal.on(() => off());
    off = signal.on((s) => heard.push(s));
    signal.emit('first');
    signal.emit('second');
    expect(heard).toEqual(['first']);
    expect(signal.observed).toBe(true);
  });
});

describe('Emitter', () => {
  it('keeps events apart and names the event whose listener threw', () => {
    const failed: string[] = [];
    const events = new Emitter<{ a: number; b: string }>((_error, event) => failed.push(String(event)));
    const heard: unknown[] = [];
    events.on('a', (n) => heard.push(n));
    events.on('b', () => {
      throw new Error('no');
    });
    events.emit('a', 1);
    events.emit('b', 'x');
    expect(heard).toEqual([1]);
    expect(failed).toEqual(['b']);
  });
});
