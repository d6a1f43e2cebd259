import { describe, expect, it } from 'vitest';
import { hostSocketUrl, takeToken } from './token';

function place(href: string, stored: string | null = null) {
  const storage = new Map<string, string>(stored ? [['steadfast.hostToken', stored]] : []);
  const replaced: string[] = [];
  return {
    replaced,
    storage,
    location: { href },
    storageApi: { getItem: (k: string) => storage.get(k) ?? null, setItem: (k: string, v: string) => void storage.set(k, v) },
    history: { state: null, replaceState: (_s: unknown, _t: string, url?: string | URL | null) => void replaced.push(String(url)) },
  };
}

describe('the host token', () => {
  it('is taken from ?token=, kept for reloads and removed from the visible URL', () => {
    const p = place('http://127.0.0.1:5000/?token=abc123&lang=fa#list');
    expect(takeToken({ location: p.location, storage: p.storageApi, history: p.history })).toBe('abc123');
    expect(p.storage.get('steadfast.hostToken')).toBe('abc123');
    expect(p.replaced).toEqual(['/?lang=fa#list']);
  });

  it('comes from session storage after a reload', () => {
    const p = place('http://127.0.0.1:5000/', 'abc123');
    expect(takeToken({ location: p.location, storage: p.storageApi, history: p.history })).toBe('abc123');
    expect(p.replaced).toEqual([]);
  });

  it('is missing when neither has it', () => {
    const p = place('http://127.0.0.1:5000/');
    expect(takeToken({ location: p.location, storage: p.storageApi, history: p.history })).toBeNull();
  });

  it('goes to the same host’s /ws, over wss for an https page', () => {
    expect(hostSocketUrl('http://127.0.0.1:5000/index.html', 'a b')).toBe('ws://127.0.0.1:5000/ws?token=a%20b');
    expect(hostSocketUrl('https://localhost:9/', 't')).toBe('wss://localhost:9/ws?token=t');
  });
});
