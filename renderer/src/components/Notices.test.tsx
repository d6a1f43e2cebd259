import { act, cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { Notices } from './Notices';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

const NOW = Date.now();
const NO_SERVER = 'choose a server to connect to, or turn Auto on for a subscription';

async function refusedConnect(message: string, code: string | undefined, language: 'en' | 'fa' = 'en') {
  const rendered = renderWithStore(<Notices />, sampleSnapshot(NOW), { language });
  rendered.client.failNext('connect', message, code);
  await act(async () => {
    await rendered.store.getState().connect();
  });
  return within(screen.getByRole('alert')).getByRole('listitem');
}

describe('a refused request in the notices', () => {
  it('a refusal the engine named is said in the user’s language, the engine’s English words one click away', async () => {
    const notice = await refusedConnect(NO_SERVER, 'no-server-chosen', 'fa');
    expect(notice.textContent).toContain('اتصال انجام نشد');
    expect(notice.textContent).toContain('سروری برای اتصال انتخاب کنید، یا حالت خودکار را برای یک اشتراک روشن کنید.');
    const details = notice.querySelector('details')!;
    expect(details.open).toBe(false);
    expect(details.querySelector('bdi')?.textContent).toBe(NO_SERVER);
  });

  it('in English too the sentence is the window’s, not the engine’s', async () => {
    const notice = await refusedConnect(NO_SERVER, 'no-server-chosen');
    expect(notice.firstElementChild?.firstElementChild?.textContent).toBe('Could not connect');
    expect(notice.querySelector('span')?.textContent).toBe(' Choose a server to connect to, or turn on Auto for a subscription.');
  });

  it.each([
    ['a code this window does not know', 'moon-in-the-way'],
    ['no code (an older host)', undefined],
  ])('%s: the engine’s words, with no details to open', async (_label, code) => {
    const notice = await refusedConnect('the moon is in the way', code, 'fa');
    expect(notice.textContent).toContain('the moon is in the way');
    expect(notice.querySelector('details')).toBeNull();
  });
});
