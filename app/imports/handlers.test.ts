import { describe, expect, it, vi } from 'vitest';
import type { Subscription } from '../../shared/domain/subscription';
import { FakeClock } from '../testing/fake-clock';
import { importHandlers } from './handlers';
import { ImportInbox } from './inbox';

const URL_ = 'https://panel.example.com/sub/abc';
const link = `sing-box://import-remote-profile?url=${encodeURIComponent(URL_)}#Mine`;

function setup(add = vi.fn(async () => ({ id: 's1', name: 'Mine', servers: [] }) as unknown as Subscription)) {
  const inbox = new ImportInbox(new FakeClock());
  return { inbox, add, handlers: importHandlers(inbox, add) };
}

describe('answering an import request', () => {
  it('adds exactly what the request showed, with its name, and only on Add', async () => {
    const { inbox, add, handlers } = setup();
    const request = inbox.offerLink(link);
    expect(add).not.toHaveBeenCalled();
    expect(await handlers.answerImport({ id: request.id, accept: true })).toMatchObject({ id: 's1' });
    expect(add).toHaveBeenCalledWith({ url: URL_ }, 'Mine');
    expect(inbox.list()).toEqual([]);
  });

  it('declined, adds nothing and forgets the request', async () => {
    const { inbox, add, handlers } = setup();
    const request = inbox.offerLink(link);
    expect(await handlers.answerImport({ id: request.id, accept: false })).toBeNull();
    expect(add).not.toHaveBeenCalled();
    expect(inbox.list()).toEqual([]);
    await expect(handlers.answerImport({ id: request.id, accept: true })).rejects.toThrow(/already answered/);
  });

  it('an unreadable request is never added, even on Add', async () => {
    const { inbox, add, handlers } = setup();
    const request = inbox.offerLink('clash://install-config?url=ftp%3A%2F%2Fx');
    expect(await handlers.answerImport({ id: request.id, accept: true })).toBeNull();
    expect(add).not.toHaveBeenCalled();
  });

  it('a failed add keeps the request, so the user can read why and decide again', async () => {
    const { inbox, handlers } = setup(vi.fn(async () => {
      throw new Error('The pasted text holds no usable server.');
    }));
    const request = inbox.offerText('vless://x@h.example.com:1', 'qr');
    await expect(handlers.answerImport({ id: request.id, accept: true })).rejects.toThrow(/no usable server/);
    expect(inbox.list()).toHaveLength(1);
  });

  it('text from a QR code becomes a request like a link', async () => {
    const { handlers } = setup();
    expect(await handlers.offerImport({ text: URL_, source: 'qr' })).toMatchObject({ source: 'qr', target: { kind: 'subscription', url: URL_ } });
  });
});
