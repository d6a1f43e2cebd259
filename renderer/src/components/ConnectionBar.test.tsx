import { act, cleanup, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppSnapshot } from '../../../shared/ipc/contract';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { App } from './App';

vi.setConfig({ testTimeout: 20_000 });

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);

beforeEach(() => {
  vi.useFakeTimers({ now: NOW, toFake: ['Date', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'] });
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

/** The sample world with the network found lost 20 s ago, the next try 15 s from now. */
function lostWorld(): AppSnapshot {
  const base = sampleSnapshot(NOW);
  return {
    ...base,
    auto: {
      ...base.auto,
      networkLostUntil: NOW + 15_000,
      timeline: [...base.auto.timeline, { type: 'network-lost', at: NOW - 20_000, attempt: 1, next_in_ms: 35_000, carrying: 'fi' }],
    },
  };
}

const topBar = () => document.querySelector('.topbar') as HTMLElement;
const row = (id: string) => document.querySelector(`[data-server-id="${id}"]`) as HTMLElement;

describe('the top bar and the rows while the network is lost', () => {
  it('says the network is lost with a live countdown to the next try, not "Connected"', () => {
    renderWithStore(<App root={document.createElement('html')} />, lostWorld());
    const status = topBar().querySelector('.state-line strong')!;
    expect(status.textContent).toBe('Network lost — waiting, next try in 15 s');
    expect(topBar().textContent).not.toContain('Connected');
    act(() => vi.advanceTimersByTime(3_000));
    expect(status.textContent).toBe('Network lost — waiting, next try in 12 s');
    act(() => vi.advanceTimersByTime(13_000));
    expect(status.textContent).toBe('Network lost — trying again now');
  });

  it('greys the pings measured before the loss, with their age, and shows every verdict as unknown', () => {
    renderWithStore(<App root={document.createElement('html')} />, lostWorld());
    // fi was measured 40 s ago, 20 s before the loss: stale.
    const fi = row('fi');
    expect(fi.querySelector('.row-ping')?.getAttribute('data-stale')).toBe('true');
    expect(within(fi).getByText('63 ms').className).toContain('stale');
    expect(within(fi).getByText('40 sec ago')).toBeTruthy();
    // de was "blocked here": no verdict stands while the network is lost.
    expect(row('de').querySelector('.verdict')?.className).toContain('verdict-unknown');
    expect(screen.queryAllByText('Blocked here')).toHaveLength(0);
  });

  it('before Auto confirms, the silence of every server asked already reads "Network lost", and older pings are stale', () => {
    const base = sampleSnapshot(NOW);
    const silent: AppSnapshot = { ...base, auto: { ...base.auto, networkLostUntil: null, networkSilentSince: NOW - 1_500 } };
    const { client } = renderWithStore(<App root={document.createElement('html')} />, silent);
    expect(topBar().querySelector('.state-line strong')!.textContent).toBe('Network lost — no server answers, checking');
    expect(topBar().querySelector('.connection-bar')?.className).toContain('state-network-lost');
    expect(row('fi').querySelector('.row-ping')?.getAttribute('data-stale')).toBe('true');
    expect(row('de').querySelector('.verdict')?.className).toContain('verdict-unknown');
    act(() => client.emit('auto', { ...silent.auto, networkSilentSince: null }));
    expect(topBar().querySelector('.state-line strong')!.textContent).toBe('Connected');
    expect(row('fi').querySelector('.row-ping')?.getAttribute('data-stale')).toBeNull();
  });

  it('shows the state and the fresh pings again once the engine clears the verdict', () => {
    const { client } = renderWithStore(<App root={document.createElement('html')} />, lostWorld());
    act(() => client.emit('auto', { ...lostWorld().auto, networkLostUntil: null }));
    expect(topBar().querySelector('.state-line strong')!.textContent).toBe('Connected');
    expect(row('fi').querySelector('.row-ping')?.getAttribute('data-stale')).toBeNull();
    expect(within(row('fi')).getByText('63 ms').className).not.toContain('stale');
  });
});

describe('direct traffic in the top bar', () => {
  it.each([
    ['global', false],
    ['ir', true],
  ] as const)('preset %s: direct rates shown: %s (under Global nothing goes direct, so no "Direct 0 kB/s")', (preset, shown) => {
    const base = sampleSnapshot(NOW);
    const { client } = renderWithStore(<App root={document.createElement('html')} />, { ...base, routing: { ...base.routing, preset, presetInForce: preset } });
    act(() => client.emit('traffic', { at: NOW, intervalMs: 1000, upBytes: 2000, downBytes: 9000, direct: { upBytes: 0, downBytes: 0 } }));
    expect(topBar().querySelector('.rate.direct') !== null).toBe(shown);
    // Nor in the tooltip that holds what the bar's width leaves out.
    const titles = [...topBar().querySelectorAll<HTMLElement>('[title]')].map((element) => element.title).join('\n');
    expect(titles.includes('Traffic that went direct, not through the server:')).toBe(shown);
  });
});
