import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { Dialogs } from './Dialogs';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

describe('a routing rule through a server group', () => {
  it('the groups of the settings are offered beside proxy, direct and block, and the rule is sent with the group’s outbound', async () => {
    const world = sampleSnapshot(Date.now());
    const { store, client } = renderWithStore(<Dialogs />, { ...world, settings: { ...world.settings, groups: [{ name: 'AI', members: { by: 'country', countries: ['US'] } }] } });
    act(() => store.getState().openDialog({ kind: 'settings' }));
    const dialog = screen.getByRole('dialog', { name: 'Settings' });
    fireEvent.click(within(dialog).getByRole('tab', { name: 'Routing' }));
    const page = within(dialog).getByRole('tabpanel', { name: 'Routing' });
    await userEvent.click(within(page).getByRole('button', { name: 'Add a rule' }));
    const rule = within(page).getByRole('listitem', { name: 'Rule 1' });
    const sendTo = within(rule).getByRole('combobox', { name: 'Send to' }) as HTMLSelectElement;
    expect([...sendTo.options].map((o) => [o.value, o.textContent])).toContainEqual(['group:AI', 'Send to: group AI']);
    await userEvent.selectOptions(sendTo, 'group:AI');
    await userEvent.type(within(rule).getByRole('textbox', { name: 'Sites' }), 'domain:anthropic.com');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    const [patch] = client.callsTo('setSettings') as { routing: { rules: unknown[] } }[];
    expect(patch?.routing.rules).toEqual([{ domain: ['domain:anthropic.com'], ip: [], outbound: 'group:AI' }]);
  });
});
