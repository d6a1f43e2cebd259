import { describe, expect, it } from 'vitest';
import { memoryLogger } from './logger';
import { Redactor } from './redact';

describe('Redactor', () => {
  it('masks UUIDs without being told about them', () => {
    const r = new Redactor();
    expect(r.apply('vless id 3f1c2a4e-9b7d-4c1e-8a2b-0d9e8f7a6b5c ok')).toBe('vless id <uuid> ok');
  });

  it('masks registered passwords wherever they appear, longest first', () => {
    const r = new Redactor();
    r.add('hunter22', 'hunter22-extra', undefined, '');
    expect(r.apply('trojan://hunter22-extra@host and pw=hunter22')).toBe('trojan://<credentials>@host and pw=<secret>');
    expect(r.apply('a hunter22-extra b')).toBe('a <secret> b');
  });

  it('masks user info in URLs', () => {
    const r = new Redactor();
    expect(r.apply('dial socks://alice:s3cret@127.0.0.1:1080 failed')).toBe('dial socks://<credentials>@127.0.0.1:1080 failed');
  });

  it('ignores secrets too short to mask safely', () => {
    const r = new Redactor();
    r.add('ab');
    expect(r.apply('about')).toBe('about');
  });
});

describe('Logger', () => {
  it('redacts before any sink sees the line and honours the level', () => {
    const { logger, lines } = memoryLogger('info');
    logger.redactor.add('p4ssword!');
    logger.debug('TUNNEL', 'hidden');
    logger.info('TUNNEL', 'connect with p4ssword! to 127.0.0.1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/ INFO TUNNEL connect with <secret> to 127\.0\.0\.1$/);
  });
});

describe('Redactor at scale', () => {
  it('masks any of 20,000 registered secrets in a line', () => {
    const r = new Redactor();
    const secrets = Array.from({ length: 20_000 }, (_, i) => `pw-${i.toString(36)}-${(i * 7919).toString(36)}`);
    r.add(...secrets);
    expect(r.size()).toBe(20_000);
    const line = `dial with ${secrets[12_345]} then ${secrets[3]} done`;
    expect(r.apply(line)).toBe('dial with <secret> then <secret> done');
  });
});
