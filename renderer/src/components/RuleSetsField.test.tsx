import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RuleSetStatus } from '../../../shared/domain/routing';
import { RULE_SET_CATALOGUE } from '../../../shared/rule-sets';
import { LANGUAGES, type Language } from '../../../shared/settings';
import { createI18n } from '../i18n';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { Dialogs } from './Dialogs';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

const NOW = Date.UTC(2026, 11, 1, 9, 30);
const chosen = { ...RULE_SET_CATALOGUE[0]!, enabled: true };
const inForce: RuleSetStatus = {
  id: chosen.id,
  name: chosen.name,
  enabled: true,
  copy: { fetchedAt: NOW, bytes: 2_500_000, entries: 48_213, viaTunnel: true },
  lastError: 'github.com answered HTTP 404 (Not Found)',
  lastAttemptAt: NOW + 3_600_000,
  unusable: null,
};

function openRouting(language: Language = 'en') {
  const snapshot = sampleSnapshot(NOW);
  snapshot.settings = { ...snapshot.settings, routing: { ...snapshot.settings.routing, ruleSets: [chosen] } };
  snapshot.routing = { ...snapshot.routing, ruleSets: [inForce] };
  const rendered = renderWithStore(<Dialogs />, snapshot, { language });
  act(() => rendered.store.getState().openDialog({ kind: 'settings' }));
  const t = createI18n(language).t;
  const dialog = screen.getByRole('dialog', { name: t('settings.title') });
  fireEvent.click(within(dialog).getByRole('tab', { name: t('routing.page') }));
  return { ...rendered, dialog, t, page: within(dialog).getByRole('tabpanel', { name: t('routing.page') }) };
}

describe('rule sets on the Routing page', () => {
  it('shows the copy in force (date, size, entries, through the tunnel) and the last error; the other ready-made sets are offered, off', () => {
    const { page } = openRouting();
    const row = within(page).getByRole('listitem', { name: chosen.name });
    expect(row.textContent).toContain('Copy in force: Dec 1, 2026');
    expect(row.textContent).toContain('2.5 MB · entries: 48,213 (fetched through the tunnel)');
    expect(row.textContent).toContain('Last update failed (the copy in force stays): github.com answered HTTP 404 (Not Found)');
    const offered = within(page).getByRole('combobox', { name: 'Ready-made sets' });
    expect([...(offered as HTMLSelectElement).options].map((o) => o.textContent)).toEqual(['Choose one…', ...RULE_SET_CATALOGUE.slice(1).map((c) => c.name)]);
    expect(within(page).getAllByRole('listitem').filter((li) => li.classList.contains('rule-set'))).toHaveLength(1);
  });

  it('choosing a ready-made set and adding one of the user’s own sends them with the routing', async () => {
    const { page, dialog, client } = openRouting();
    const other = RULE_SET_CATALOGUE[4]!;
    await userEvent.selectOptions(within(page).getByRole('combobox', { name: 'Ready-made sets' }), other.id);
    await userEvent.click(within(page).getByRole('button', { name: 'Use this set' }));
    await userEvent.click(within(page).getByRole('button', { name: 'Add a rule set' }));
    fireEvent.change(within(page).getByRole('textbox', { name: 'Name' }), { target: { value: 'Lab list' } });
    fireEvent.change(within(page).getByRole('textbox', { name: /^Address/ }), { target: { value: 'http://127.0.0.1:8080/geosite.dat' } });
    fireEvent.change(within(page).getByRole('textbox', { name: 'List' }), { target: { value: 'labset' } });
    await userEvent.click(within(page).getByRole('button', { name: 'Add' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    const [patch] = client.callsTo('setSettings') as { routing: { ruleSets: { id: string; enabled: boolean; url: string; list?: string }[] } }[];
    expect(patch?.routing.ruleSets.map((s) => [s.url, s.list, s.enabled])).toEqual([
      [chosen.url, chosen.list, true],
      [other.url, other.list, true],
      ['http://127.0.0.1:8080/geosite.dat', 'labset', true],
    ]);
  });

  it.each(LANGUAGES)('reads in %s: every line of a set in that language, with the engine’s reason kept left to right', (language) => {
    const { page, t } = openRouting(language);
    expect(page.textContent).toContain(t('routing.ruleSets.title'));
    const row = within(page).getByRole('listitem', { name: chosen.name });
    expect(row.textContent).toContain(t('routing.ruleSets.viaTunnel'));
    const reason = within(row).getByText(inForce.lastError!);
    expect(reason.getAttribute('dir')).toBe('ltr');
    expect(row.textContent).toContain(t('routing.ruleSets.failed', { error: '' }).trim());
  });
});
