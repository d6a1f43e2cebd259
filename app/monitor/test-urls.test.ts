import { describe, expect, it } from 'vitest';
import { type MonitorSettings, monitorSettingsSchema } from '../../shared/settings';
import { TestUrls } from './test-urls';

describe('the test URL in use', () => {
  it('starts with the first URL, keeps the one that worked, and never points past a shortened list', () => {
    let settings: MonitorSettings = monitorSettingsSchema.parse({ urls: ['http://one.test/', 'http://two.test/', 'http://three.test/'] });
    const urls = new TestUrls(() => settings);
    expect(urls.current()).toBe('http://one.test/');
    urls.use(2);
    expect(urls.current()).toBe('http://three.test/');
    settings = { ...settings, urls: ['http://one.test/', 'http://two.test/'] };
    expect(urls.current()).toBe('http://two.test/');
    urls.use(urls.index);
    expect(urls.index).toBe(1);
    // A cache from a run with a longer list.
    urls.use(7);
    expect(urls.index).toBe(1);
  });
});
