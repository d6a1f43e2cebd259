/**
 * The contract the renderer talks through validates every request before a service sees it
 * (shared/ipc/contract.ts parseRequest, run by both hosts). These are the payloads a buggy or
 * hostile page could send; each must be refused with an error naming the channel and the field.
 */
import { describe, expect, it } from 'vitest';
import { INVOKE_CHANNELS, isInvokeChannel, parseRequest } from '../../../shared/ipc/contract';
import { clientMessageSchema } from '../../../shared/ipc/client-message';

describe('parseRequest accepts what the renderer sends', () => {
  it.each([
    ['getSnapshot', {}],
    ['connect', { serverId: 'fi' }],
    ['connect', {}], // Auto's pick or the last server
    ['setAuto', { subscriptionId: null }],
    ['setAuto', { subscriptionId: 'A' }],
    ['setExcluded', { subscriptionId: 'A', serverIds: ['fi', 'nl'] }],
    ['setGroupExcluded', { group: 'AI', serverIds: ['us1'] }],
    ['addSubscription', { url: 'https://provider.example/sub?token=x' }],
    ['addSubscription', { text: 'vless://…', name: 'Pasted' }],
    ['reorderSubscriptions', { ids: ['B', 'A'] }],
    ['editSubscription', { id: 'A', userAgent: 'clash-verge/v1.7.7' }],
    ['editSubscription', { id: 'A', userAgent: null }], // back to the app's own
    ['setSettings', { language: 'fa', monitor: { workers: 4 } }],
    ['labControl', { action: 'fault', serverId: 'A1', fault: 'blackhole' }],
    ['labControl', { action: 'network', state: 'offline' }],
  ] as const)('%s %j', (channel, payload) => {
    expect(() => parseRequest(channel, payload)).not.toThrow();
  });
});

describe('parseRequest rejects invalid payloads', () => {
  it.each([
    ['connect', { serverId: '' }, /serverId/],
    ['connect', { serverId: 'x'.repeat(129) }, /serverId/],
    ['connect', { serverId: 'fi', extra: 1 }, /invalid connect request/],
    ['connect', null, /invalid connect request/],
    ['connect', 'fi', /invalid connect request/],
    ['setAuto', {}, /subscriptionId/],
    ['setAuto', { subscriptionId: 42 }, /subscriptionId/],
    ['setExcluded', { subscriptionId: 'A', serverIds: 'fi' }, /serverIds/],
    ['setExcluded', { subscriptionId: 'A', serverIds: [''] }, /serverIds\.0/],
    ['setGroupExcluded', { group: '', serverIds: [] }, /group/],
    ['setGroupExcluded', { group: 'AI', serverIds: 'us1' }, /serverIds/],
    ['addSubscription', {}, /give either a URL or pasted text/],
    ['addSubscription', { url: 'https://a.example', text: 'x' }, /give either a URL or pasted text/],
    ['addSubscription', { url: 'not a url' }, /url/],
    ['addSubscription', { url: 'file:///etc/passwd' }, /http\(s\)/],
    ['reorderSubscriptions', { ids: [1, 2] }, /ids\.0/],
    ['editSubscription', { id: 'A', userAgent: 'line\nbreak' }, /userAgent.*printable ASCII/],
    ['editSubscription', { id: 'A', userAgent: 'x'.repeat(301) }, /userAgent.*longer than 300/],
    ['editSubscription', { id: 'A', userAgent: '  ' }, /userAgent.*empty/],
    ['editSubscription', { id: 'A' }, /userAgent/],
    ['addSubscription', { url: 'https://a.example', userAgent: 'Клиент' }, /userAgent.*printable ASCII/],
    ['setSettings', { monitor: { workers: 0 } }, /monitor\.workers/],
    ['setSettings', { theme: 'neon' }, /theme/],
    ['setSettings', { httpPort: 70000 }, /httpPort/],
    ['labControl', { action: 'fault', serverId: 'A1', fault: 'meteor' }, /fault/],
    ['labControl', { action: 'explode' }, /invalid labControl request/],
    ['getSnapshot', { sneaky: true }, /invalid getSnapshot request/],
  ] as const)('%s %j', (channel, payload, message) => {
    expect(() => parseRequest(channel, payload)).toThrow(message);
  });

  it('refuses a channel that does not exist', () => {
    expect(isInvokeChannel('deleteEverything')).toBe(false);
    expect(isInvokeChannel('__proto__')).toBe(false);
    expect(() => parseRequest('deleteEverything' as never, {})).toThrow(/unknown channel "deleteEverything"/);
    expect(INVOKE_CHANNELS.every(isInvokeChannel)).toBe(true);
  });

  it('frames: only {kind:"invoke", id, channel, payload} is a client message', () => {
    expect(clientMessageSchema.safeParse({ kind: 'invoke', id: 1, channel: 'connect', payload: { serverId: 'fi' } }).success).toBe(true);
    expect(clientMessageSchema.safeParse({ kind: 'invoke', id: -1, channel: 'connect', payload: {} }).success).toBe(false);
    expect(clientMessageSchema.safeParse({ kind: 'event', id: 1, channel: 'connect', payload: {} }).success).toBe(false);
    expect(clientMessageSchema.safeParse({ kind: 'invoke', id: 1, channel: 'connect', payload: {}, extra: 1 }).success).toBe(false);
  });
});
