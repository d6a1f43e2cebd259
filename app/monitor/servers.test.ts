import { describe, expect, it } from 'vitest';
import type { Server } from '../../shared/domain/server';
import { ServerRecords } from './records';
import { ServerDirectory } from './servers';
import { fakeServer } from './testing/harness';

describe('the server directory', () => {
  it('follows a new list from the composition root and drops the results of removed servers', () => {
    const records = new ServerRecords();
    let list: Server[] = [fakeServer('a'), fakeServer('b')];
    const servers = new ServerDirectory(() => list, records);
    expect(servers.ids()).toEqual(['a', 'b']);
    records.applyUrlOutcome('a', { ok: true, delayMs: 40 }, 1);
    records.applyUrlOutcome('b', { ok: true, delayMs: 50 }, 1);
    list = [fakeServer('b'), fakeServer('c')];
    // A server added since the last read is found by id without waiting for serversChanged.
    expect(servers.get('c')?.name).toBe('server c');
    expect(servers.ids()).toEqual(['b', 'c']);
    expect(records.get('a')).toBeUndefined();
    expect(records.get('b')?.last?.delayMs).toBe(50);
    expect(servers.refresh(false)).toBe(false);
    expect(servers.refresh(true)).toBe(true);
  });

  it('names an unknown server by its id and groups servers by the front address they dial', () => {
    const servers = new ServerDirectory(() => [fakeServer('a', { address: 'cdn.example.test' }), fakeServer('b', { address: 'CDN.example.test' })], new ServerRecords());
    expect(servers.name('a')).toBe('server a');
    expect(servers.name('gone')).toBe('gone');
    expect(servers.frontOf('a')).toBe(servers.frontOf('b'));
    expect(servers.frontOf('gone')).toBe('id:gone');
  });
});
