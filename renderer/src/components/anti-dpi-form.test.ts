import { describe, expect, it } from 'vitest';
import { antiDpiSettingsSchema } from '../../../shared/settings';
import { type AntiDpiValues, checkAntiDpiValues, globalAntiDpiChange, globalValuesOf, overrideDraftOf, withServerOverride } from './anti-dpi-form';

const settings = (patch: Record<string, unknown> = {}) => antiDpiSettingsSchema.parse(patch);
const defaults = globalValuesOf(settings());
const withFragment = (change: Partial<AntiDpiValues['fragment']>): AntiDpiValues => ({ ...defaults, fragment: { ...defaults.fragment, ...change } });
const withNoise = (change: Partial<AntiDpiValues['noise']>): AntiDpiValues => ({ ...defaults, noise: { ...defaults.noise, ...change } });

describe('checking the anti-DPI fields with the settings’ schema', () => {
  it.each([
    ['packets that are neither tlshello nor numbers', withFragment({ packets: 'all' }), { 'fragment.packets': 'packets' }],
    ['a length that is not a range', withFragment({ length: '100..200' }), { 'fragment.length': 'range' }],
    ['an empty interval', withFragment({ interval: '' }), { 'fragment.interval': 'range' }],
    ['a random noise whose packet is not a length', withNoise({ type: 'rand', packet: 'hello' }), { 'noise.packet': 'randPacket' }],
    ['a base64 noise that is not base64', withNoise({ type: 'base64', packet: 'hello!' }), { 'noise.packet': 'base64' }],
    ['an empty noise packet', withNoise({ type: 'str', packet: '' }), { 'noise.packet': 'empty' }],
    ['a noise packet over 1000 characters', withNoise({ type: 'str', packet: 'x'.repeat(1001) }), { 'noise.packet': 'tooLong' }],
    ['a delay in words', withNoise({ delay: 'soon' }), { 'noise.delay': 'range' }],
    ['two bad fields at once, each named', withFragment({ length: 'big', interval: 'x' }), { 'fragment.length': 'range', 'fragment.interval': 'range' }],
    // Off does not mean unchecked: the values are kept and used the moment the part is switched on.
    ['a bad value in a part that is off', withFragment({ enabled: false, length: 'big' }), { 'fragment.length': 'range' }],
  ] as const)('names %s', (_name, values, errors) => {
    expect(checkAntiDpiValues(values)).toEqual({ ok: false, errors });
  });

  it.each([
    ['the defaults', defaults, defaults],
    ['spaces around ranges, trimmed', withFragment({ packets: ' 1-3 ', length: ' 5-10', interval: '2 ' }), withFragment({ packets: '1-3', length: '5-10', interval: '2' })],
    ['a text noise kept as typed, spaces included', withNoise({ type: 'str', packet: ' hi there ' }), withNoise({ type: 'str', packet: ' hi there ' })],
    ['a base64 noise', withNoise({ type: 'base64', packet: 'aGVsbG8=' }), withNoise({ type: 'base64', packet: 'aGVsbG8=' })],
  ] as const)('accepts %s', (_name, values, expected) => {
    expect(checkAntiDpiValues(values)).toEqual({ ok: true, values: expected });
  });

  it('sends the global block only when it changed, keeping the servers’ overrides', () => {
    const stored = settings({ servers: { a: 'off' } });
    expect(globalAntiDpiChange(stored, globalValuesOf(stored))).toBeNull();
    expect(globalAntiDpiChange(stored, withFragment({ enabled: true }))).toEqual({ ...stored, fragment: { ...stored.fragment, enabled: true } });
  });
});

describe('one server’s override', () => {
  const own = { fragment: { enabled: true, packets: '1-3', length: '5-10', interval: '1-2' }, noise: { enabled: false, type: 'str', packet: 'x', delay: '5' } } as const;

  it.each([
    ['no override: the global setting, offered with the global values', settings(), 'global', defaults],
    ['off', settings({ servers: { a: 'off' } }), 'off', defaults],
    ['values of its own', settings({ servers: { a: own } }), 'custom', own],
    [
      'a stored `on`: its own values, the global ones with both on (the same effect)',
      settings({ servers: { a: 'on' } }),
      'custom',
      { fragment: { ...defaults.fragment, enabled: true }, noise: { ...defaults.noise, enabled: true } },
    ],
  ] as const)('is shown for %s', (_name, stored, choice, values) => {
    expect(overrideDraftOf(stored, 'a')).toEqual({ choice, values });
  });

  it.each([
    ['the global setting removes the override', { choice: 'global', values: defaults }, { b: 'off' }],
    ['off is stored as off', { choice: 'off', values: own }, { a: 'off', b: 'off' }],
    ['values of its own are stored, trimmed', { choice: 'custom', values: { ...own, fragment: { ...own.fragment, length: ' 5-10 ' } } }, { a: own, b: 'off' }],
  ] as const)('is saved: %s, another server’s untouched', (_name, draft, servers) => {
    const stored = settings({ servers: { a: 'on', b: 'off' } });
    expect(withServerOverride(stored, 'a', draft)).toEqual({ ok: true, antiDpi: { ...stored, servers } });
  });

  it('is not saved with a bad value of its own, and says which; a bad value it does not use does not matter', () => {
    const stored = settings();
    const bad = { ...own, noise: { ...own.noise, type: 'rand', packet: 'abc' } } as const;
    expect(withServerOverride(stored, 'a', { choice: 'custom', values: bad })).toEqual({ ok: false, errors: { 'noise.packet': 'randPacket' } });
    expect(withServerOverride(stored, 'a', { choice: 'off', values: bad })).toEqual({ ok: true, antiDpi: { ...stored, servers: { a: 'off' } } });
  });
});
