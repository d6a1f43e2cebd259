import { describe, expect, it, vi } from 'vitest';
import type { Subscription } from '../../shared/domain/subscription';
import { FakeClock } from '../testing/fake-clock';
import { importHandlers } from './handlers';
import { ImportInbox } from './inbox';
import { SubscriptionNotAdded } from '../subscriptions/not-added';

const URL_ = 'https://panel.example.com/sub/abc';
const link = `sing-box://import-remote-profile?url=${encodeURIComponent(URL_)}#Mine`;

type AddFn = Parameters<typeof importHandlers>[1];

function setup(add = vi.fn<AddFn>(async () => ({ id: 's1', name: 'Mine', servers: [] }) as unknown as Subscription)) {
  const inbox = new ImportInbox(new FakeClock());
  return { inbox, add, handlers: importHandlers(inbox, add) };
}

describe('answering an import request', () => {
  it('adds exactly what the request showed, with its name, and only on Add', async () => {
    const { inbox, add, handlers } = setup();
    const request = inbox.offerLink(link);
    expect(add).not.toHaveBeenCalled();
    expect(await handlers.answerImport({ id: request.id, accept: true })).toMatchObject({ id: 's1' });
    expect(add).toHaveBeenCalledWith({ url: URL_ }, 'Mine', { onlyIfFetched: true });
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
    const { inbox, handlers } = setup(vi.fn<AddFn>(async () => {
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

  it('what the box took is asked about like a link, with the name and User-Agent the user gave', async () => {
    const { inbox, add, handlers } = setup();
    const offered = await handlers.offerImport({ text: link, source: 'paste', name: '  Work  ', userAgent: 'clash-verge/1.0' });
    expect(offered).toMatchObject({ source: 'paste', name: 'Work', userAgent: 'clash-verge/1.0', target: { kind: 'subscription', url: URL_ } });
    expect(add).not.toHaveBeenCalled();
    await handlers.answerImport({ id: offered.id, accept: true });
    expect(add).toHaveBeenCalledWith({ url: URL_ }, 'Work', { userAgent: 'clash-verge/1.0', onlyIfFetched: true });
    expect(inbox.list()).toEqual([]);
  });

  it('what the box cannot read is refused there, with the reason, and nothing waits for an answer', async () => {
    const { inbox, handlers } = setup();
    await expect(handlers.offerImport({ text: 'hello there', source: 'paste' })).rejects.toMatchObject({ code: 'nothing-to-import', message: expect.stringMatching(/^Nothing to add: it holds neither/) });
    expect(inbox.list()).toEqual([]);
  });

  it('a fetch that fails adds nothing: the request stays and says why; Keep adds it to be retried later', async () => {
    const add = vi.fn<AddFn>(async (_source, _name, options) => {
      if (options.onlyIfFetched) throw new SubscriptionNotAdded('refused', 'Nothing was added: connection refused.');
      return { id: 's1', name: 'Mine', servers: [] } as unknown as Subscription;
    });
    const { inbox, handlers } = setup(add);
    const request = inbox.offerLink(link);
    await expect(handlers.answerImport({ id: request.id, accept: true })).rejects.toMatchObject({ code: 'subscription-not-added', message: 'Nothing was added: connection refused.' });
    expect(inbox.list()).toMatchObject([{ id: request.id, failure: { kind: 'refused', detail: 'Nothing was added: connection refused.' } }]);
    expect(await handlers.answerImport({ id: request.id, accept: true, keep: true })).toMatchObject({ id: 's1' });
    expect(add).toHaveBeenLastCalledWith({ url: URL_ }, 'Mine', { onlyIfFetched: false });
    expect(inbox.list()).toEqual([]);
  });
});
