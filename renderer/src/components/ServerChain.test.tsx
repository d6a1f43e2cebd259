import { act, cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AppSnapshot } from '../../../shared/ipc/contract';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { Dialogs } from './Dialogs';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);
// The dialog's chart is loaded lazily; loaded here, its first transform is not charged to a test.
beforeAll(() => import('./PingChart'), 60_000);

const NOW = Date.now();

/** The sample world with `us` reached through `ir` (as the host sends it once the chain is in force). */
function chainedWorld(): AppSnapshot {
  const world = sampleSnapshot(NOW);
  const [a, ...rest] = world.subscriptions;
  const servers = a!.servers.map((s) => (s.id === 'us' ? { ...s, via: 'ir' } : s));
  return { ...world, subscriptions: [{ ...a!, servers }, ...rest], settings: { ...world.settings, chains: { us: 'ir' } } };
}

describe('a server’s chain in its details', () => {
  it('a server without one says it is reached directly; choosing a front sends it with the other chains kept', async () => {
    const { store, client } = renderWithStore(<Dialogs />, chainedWorld());
    act(() => store.getState().openDialog({ kind: 'server-details', serverId: 'de' }));
    const section = within(screen.getByRole('region', { name: 'Chain' }));
    expect(section.getByText('Reached directly (no front)')).toBeTruthy();
    const select = section.getByRole('combobox', { name: 'Reach it through' }) as HTMLSelectElement;
    const offered = [...select.options].map((o) => o.value);
    // Not itself, and not a server that has a front of its own: a chain has one front.
    expect(offered).toEqual(['', 'fi', 'nl', 'ir', 'jp', 'b1', 'b2', 'b3']);
    await userEvent.selectOptions(select, 'b1');
    await userEvent.click(section.getByRole('button', { name: 'Save chain' }));
    expect(client.callsTo('setSettings')).toEqual([{ chains: { us: 'ir', de: 'b1' } }]);
    expect(section.getByRole('status').textContent).toBe('Chain saved.');
  });

  it('a chained server names its front; “as its link says” removes the chosen one alone', async () => {
    const { store, client } = renderWithStore(<Dialogs />, chainedWorld());
    act(() => store.getState().openDialog({ kind: 'server-details', serverId: 'us' }));
    const section = within(screen.getByRole('region', { name: 'Chain' }));
    expect(section.getByText(/Reached through/).closest('p')?.textContent).toContain('Iran relay (Tehran)');
    const select = section.getByRole('combobox', { name: 'Reach it through' }) as HTMLSelectElement;
    expect(select.value).toBe('ir');
    await userEvent.selectOptions(select, '');
    await userEvent.click(section.getByRole('button', { name: 'Save chain' }));
    expect(client.callsTo('setSettings')).toEqual([{ chains: {} }]);
  });
});
