import { act, cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot, seedTimeline, server, subscription } from '../testing/sample-world';
import { AutoTimeline } from './AutoTimeline';

// jsdom role queries and typed input are slow on a busy machine: room to finish, not a sleep.
vi.setConfig({ testTimeout: 20_000 });

afterEach(cleanup);

function snapshotWithSeedServers() {
  const now = Date.now();
  const base = sampleSnapshot(now);
  const a = [server('fi', 'A', 'Finland'), server('nl', 'A', 'Netherlands'), server('de', 'A', 'Germany')];
  const b = [server('b1', 'B', 'B1'), server('b2', 'B', 'B2')];
  return { ...base, subscriptions: [subscription('A', 'A', a), subscription('B', 'B', b)], auto: { ...base.auto, timeline: seedTimeline(now) } };
}

describe('the Auto timeline', () => {
  it('draws the band with who carried the traffic and names the figure', () => {
    renderWithStore(<AutoTimeline />, snapshotWithSeedServers());
    const figure = screen.getByRole('img', { name: 'Which server carried the traffic over the last 30 min' });
    const segments = [...figure.querySelectorAll('rect title')].map((t) => t.textContent?.split(':')[0]);
    expect(segments).toEqual(['Finland', 'Netherlands', 'Finland', 'no network']);
  });

  it('lists the decisions newest first, in words, with their reasons', () => {
    renderWithStore(<AutoTimeline />, snapshotWithSeedServers());
    const list = document.querySelector('.decision-list') as HTMLElement;
    const text = [...list.children].map((li) => li.textContent?.replace(/[\u2068\u2069]/g, ''));
    expect(text[0]).toContain('Stayed on Finland');
    expect(text.some((t) => t?.includes('Switched Netherlands → Finland: Finland answered twice in a row'))).toBe(true);
    expect(text.some((t) => t?.includes('Check (traffic stalled)') && t.includes('Switched Finland → Netherlands: Finland stopped answering'))).toBe(true);
    expect(text.filter((t) => t?.includes('the network is gone'))).toHaveLength(1);
    expect(text.some((t) => t?.includes('the network is gone') && t.includes('Next try in 2 min (attempt 4)'))).toBe(true);
    expect(text.some((t) => t?.includes('Finland: no answer (not recorded)'))).toBe(true);
    expect(text.at(-1)).toContain('Connected to Finland: Auto was turned on');
    // Auto's reason codes in words, with the names of this window.
    expect(text[0]).toContain('Stayed on Finland: it answered');
    expect(text.some((t) => t?.includes('Stayed on Netherlands: Finland answered 1 time in a row; going back needs 2'))).toBe(true);
    expect(text.some((t) => /current-answered|return-pending/.test(t ?? ''))).toBe(false);
  });

  it('lists the probe answers under the switch they led to, labelled, not as an entry of their own', () => {
    const snapshot = snapshotWithSeedServers();
    const t0 = Date.now() - 60_000;
    const timeline = [
      { type: 'prepare' as const, at: t0, probe: ['fi', 'nl'], carrying: 'fi' },
      { type: 'probe-result' as const, at: t0 + 300, id: 'nl', delay: 152, recorded: true, carrying: 'fi' },
      { type: 'check' as const, at: t0 + 2500, trigger: 'stall' as const, probe: ['fi', 'nl'], carrying: 'fi' },
      { type: 'switch' as const, at: t0 + 2600, from: 'fi', to: 'nl', reason: 'current-silent' as const, carrying: 'fi' },
      { type: 'probe-result' as const, at: t0 + 5000, id: 'fi', delay: null, recorded: true, carrying: 'nl' },
    ];
    renderWithStore(<AutoTimeline />, { ...snapshot, auto: { ...snapshot.auto, timeline } });
    const items = [...(document.querySelector('.decision-list') as HTMLElement).children];
    expect(items).toHaveLength(1);
    const answers = within(items[0] as HTMLElement).getByRole('list', { name: 'What the probes answered' });
    expect([...answers.children].map((li) => li.textContent?.replace(/[\u2068\u2069]/g, ''))).toEqual(['Netherlands: 152 ms', 'Finland: no answer']);
    expect(items[0]?.textContent).toContain('What the probes answered');
    expect(items[0]?.textContent).toContain('Switched');
  });

  it('says the reasons in the user’s language', () => {
    renderWithStore(<AutoTimeline />, snapshotWithSeedServers(), { language: 'ru' });
    const list = document.querySelector('.decision-list') as HTMLElement;
    const text = [...list.children].map((li) => li.textContent?.replace(/[\u2068\u2069]/g, '')).join('\n');
    expect(text).toContain('Остаёмся на Finland: он ответил');
    expect(text).toContain('Finland ответил 1 раз подряд; для возврата нужно 2');
  });

  it('draws a new connection when it comes, not at the clock’s next tick', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const snapshot = snapshotWithSeedServers();
      const mounted = Date.now();
      const { client } = renderWithStore(<AutoTimeline />, { ...snapshot, auto: { ...snapshot.auto, timeline: [] }, connection: { ...snapshot.connection, since: mounted - 60_000 } });
      const figure = () => screen.getByRole('img', { name: 'Which server carried the traffic over the last 30 min' });
      const segments = () => [...figure().querySelectorAll('rect title')].map((t) => t.textContent?.split(':')[0]);
      expect(segments()).toEqual(['Finland']);
      // 3 s later (the clock ticks every 5 s) the tunnel is up through nl since a second ago.
      vi.setSystemTime(mounted + 3000);
      await act(async () => client.emit('connection', { ...snapshot.connection, serverId: 'nl', since: mounted + 2000 }));
      expect(segments()).toEqual(['Finland', 'Netherlands']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('draws the connected server before Auto has decided anything', () => {
    const snapshot = snapshotWithSeedServers();
    const since = Date.now() - 5 * 60_000;
    renderWithStore(<AutoTimeline />, { ...snapshot, auto: { ...snapshot.auto, timeline: [] }, connection: { ...snapshot.connection, serverId: 'nl', since } });
    const figure = screen.getByRole('img', { name: 'Which server carried the traffic over the last 30 min' });
    const segments = [...figure.querySelectorAll('rect title')].map((t) => t.textContent?.split(':')[0]);
    expect(segments).toEqual(['Netherlands']);
    expect(screen.getByText('No decisions yet.')).toBeTruthy();
  });

  it('says Auto is off when it is', () => {
    const snapshot = snapshotWithSeedServers();
    renderWithStore(<AutoTimeline />, { ...snapshot, auto: { ...snapshot.auto, subscriptionId: null, timeline: [] } });
    expect(screen.getByText(/Auto is off/)).toBeTruthy();
    expect(screen.getByText('No decisions yet.')).toBeTruthy();
  });
});

describe('the Auto timeline and the transfer test', () => {
  it('names the reason when it skips a server that answers pings but freezes, and marks a slow one', () => {
    const snapshot = snapshotWithSeedServers();
    const at = Date.now() - 60_000;
    snapshot.auto = {
      ...snapshot.auto,
      timeline: [
        { type: 'check', at, trigger: 'stall', probe: ['fi', 'nl', 'de'], carrying: 'fi' },
        { type: 'probe-result', at: at + 60, id: 'fi', delay: 61, recorded: true, transfer: 'freezes', carrying: 'fi' },
        { type: 'probe-result', at: at + 30, id: 'nl', delay: 18, recorded: true, transfer: 'throttled', carrying: 'fi' },
        { type: 'probe-result', at: at + 40, id: 'de', delay: 41, recorded: true, carrying: 'fi' },
        { type: 'switch', at: at + 2500, from: 'fi', to: 'de', reason: 'current-silent', carrying: 'de' },
      ],
    };
    renderWithStore(<AutoTimeline />, snapshot);
    const results = [...document.querySelectorAll('.probe-results li')].map((li) => li.textContent?.replace(/[\u2068\u2069]/g, ''));
    expect(results).toContain('Finland: 61 ms · its traffic freezes: counted as not answering');
    expect(results).toContain('Netherlands: 18 ms · slow traffic');
    expect(results).toContain('Germany: 41 ms');
  });
});
