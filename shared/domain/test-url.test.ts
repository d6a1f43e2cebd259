import { describe, expect, it } from 'vitest';
import { judgeTestUrlAnswer, promisesNoContent } from './test-url';

describe('what counts as an answer from a test URL (seed 002: any HTTP response, except where 204 is promised)', () => {
  it.each([
    ['https://www.gstatic.com/generate_204', true],
    ['https://connectivitycheck.gstatic.com/generate_204', true],
    ['http://www.google.com/gen_204?x=1', true],
    ['http://127.0.0.1:8080/generate_204', true],
    ['https://example.com/status/204', true],
    ['https://cp.cloudflare.com', false],
    ['https://www.apple.com/library/test/success.html', false],
    ['https://example.com/generate_2040', false],
    ['not a url', false],
  ])('%s promises 204: %s', (url, expected) => {
    expect(promisesNoContent(url)).toBe(expected);
  });

  it.each([
    { url: 'https://cp.cloudflare.com', status: 200, ok: true },
    { url: 'https://cp.cloudflare.com', status: 204, ok: true },
    { url: 'https://example.com/ping', status: 404, ok: true },
    { url: 'https://example.com/ping', status: 302, ok: true },
    { url: 'https://example.com/ping', status: 503, ok: true },
    { url: 'https://www.gstatic.com/generate_204', status: 204, ok: true },
  ])('$url answering $status is an answer: $ok', ({ url, status, ok }) => {
    expect(judgeTestUrlAnswer(url, status)).toEqual({ ok });
  });

  it.each([200, 302, 403, 404])('a URL that promises 204 answering %i is a captive portal or a block page: a failure, named so', (status) => {
    expect(judgeTestUrlAnswer('https://www.gstatic.com/generate_204', status)).toEqual({
      ok: false,
      message: `HTTP ${status} instead of 204: a captive portal or a block page answered in its place`,
    });
  });

  it('an explicit expected status wins (an IP-info service must answer 200)', () => {
    expect(judgeTestUrlAnswer('http://127.0.0.1/json', 200, 200)).toEqual({ ok: true });
    expect(judgeTestUrlAnswer('http://127.0.0.1/json', 404, 200)).toEqual({ ok: false, message: 'HTTP 404 instead of 200' });
  });
});
