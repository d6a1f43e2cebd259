import { act, render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import { createI18n } from '../i18n';
import { useFormat } from './useFormat';

/** Formats and nothing else: it has no `t` of its own to re-render it when the language changes. */
function Figure() {
  const format = useFormat();
  return <span data-testid="figure">{format.number(1234)}</span>;
}

describe('useFormat', () => {
  it('follows the language as it changes: Persian digits once the window is in Persian, Latin again in English', async () => {
    const i18n = createI18n('en');
    render(
      <I18nextProvider i18n={i18n}>
        <Figure />
      </I18nextProvider>,
    );
    expect(screen.getByTestId('figure').textContent).toBe('1,234');
    await act(() => i18n.changeLanguage('fa'));
    expect(screen.getByTestId('figure').textContent).toBe('۱٬۲۳۴');
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByTestId('figure').textContent).toBe('1,234');
  });
});
