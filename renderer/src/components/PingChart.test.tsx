import { cleanup, render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createI18n } from '../i18n';
import { measurementsFor } from '../testing/sample-world';
import { PingChart } from './PingChart';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

describe('the ping chart', () => {
  it.each([
    ['en', 'good below 150 ms', 'fair below 400 ms'],
    ['ru', 'хорошо — до 150 мс', 'терпимо — до 400 мс'],
  ] as const)('%s: a legend says what its two dashed lines are', (language, good, fair) => {
    render(
      <I18nextProvider i18n={createI18n(language)}>
        <PingChart measurements={measurementsFor(1, Date.now(), 6)} name="Helsinki" rtl={false} />
      </I18nextProvider>,
    );
    const legend = document.querySelector('figure.ping-chart figcaption')!;
    expect([...legend.querySelectorAll('.legend-item')].map((item) => item.textContent)).toEqual([good, fair]);
    expect(legend.querySelectorAll('.legend-dash.good, .legend-dash.fair')).toHaveLength(2);
    expect(screen.getByRole('figure')).toBeTruthy();
  });
});
