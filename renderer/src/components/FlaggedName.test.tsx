import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppSnapshot } from '../../../shared/ipc/contract';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { ServerList } from './ServerList';

afterEach(cleanup);

/** The sample world with emoji flags in a server's and a subscription's name, as providers write them. */
function flaggedWorld(): AppSnapshot {
  const snapshot = sampleSnapshot(Date.now());
  const [a, b] = snapshot.subscriptions;
  if (!a || !b) throw new Error('sample world changed');
  return {
    ...snapshot,
    subscriptions: [
      { ...a, servers: a.servers.map((s) => (s.id === 'de' ? { ...s, name: '🇩🇪 Frankfurt · Germany' } : s)) },
      { ...b, name: '🇸🇪🇵🇱 Nordic' },
    ],
  };
}

describe('emoji flags in names', () => {
  it('draws the pair in a server name as the flag image, named after the country', () => {
    renderWithStore(<ServerList />, flaggedWorld());
    const name = screen.getAllByRole('listitem').map((row) => row.querySelector('.server-name')).find((n) => n?.textContent?.includes('Frankfurt ·'));
    if (!name) throw new Error('no Frankfurt row');
    const flag = within(name as HTMLElement).getByRole('img', { name: 'Germany' });
    expect(flag.getAttribute('data-country')).toBe('DE');
    expect(name.textContent).not.toContain('🇩🇪');
  });

  it('draws both flags of a subscription name, read in the UI language', () => {
    renderWithStore(<ServerList />, flaggedWorld(), { language: 'ru' });
    const heading = screen.getByRole('heading', { name: /Nordic/ });
    expect(within(heading).getAllByRole('img').map((img) => img.getAttribute('aria-label'))).toEqual(['Швеция', 'Польша']);
  });

  it('leaves a name without flags as plain text', () => {
    renderWithStore(<ServerList />, flaggedWorld());
    const name = screen.getAllByRole('listitem').map((row) => row.querySelector('.server-name')).find((n) => n?.textContent?.includes('Amsterdam'));
    expect(name?.querySelector('[role="img"]')).toBeNull();
  });
});
