import { describe, expect, it } from 'vitest';
import { FRONT_ADDRESS_LIMIT, frontKey, isBusyBatch, mayProbeFront } from './batch';

describe('batch rules against false timeouts', () => {
  it('lets at most 2 probes run to one front address', () => {
    expect(FRONT_ADDRESS_LIMIT).toBe(2);
    expect(mayProbeFront(0)).toBe(true);
    expect(mayProbeFront(1)).toBe(true);
    expect(mayProbeFront(2)).toBe(false);
  });

  it('shares a front between spellings of one host', () => {
    expect(frontKey('CDN.Example.com')).toBe(frontKey('cdn.example.com '));
    expect(frontKey('[2001:db8::1]')).toBe('2001:db8::1');
  });

  it('calls a batch busy from half the workers (and never a probe running alone)', () => {
    expect(isBusyBatch(4, 10)).toBe(false);
    expect(isBusyBatch(5, 10)).toBe(true);
    expect(isBusyBatch(1, 1)).toBe(false);
    expect(isBusyBatch(2, 2)).toBe(true);
  });
});
