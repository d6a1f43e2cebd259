import { cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GroupPickSnapshot, TimelineEntry } from '../../../shared/domain/auto';
import { renderWithStore } from '../testing/render';
import { ipInfo, sampleSnapshot, server, status, subscription } from '../testing/sample-world';
import { AutoTimeline } from './AutoTimeline';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

const now = Date.now();
const group = (patch: Partial<GroupPickSnapshot>): GroupPickSnapshot => ({
  name: 'AI',
  pick: 'us1',
  members: 2,
  memberIds: ['us1', 'us2'],
  state: 'on',
  reason: 'current-silent',
  excluded: [],
  excludedInAuto: [],
  returnCandidate: null,
  networkLostUntil: null,
  timeline: [],
  ...patch,
});

function world(groups: GroupPickSnapshot[]) {
  const base = sampleSnapshot(now);
  const servers = [server('fi', 'A', 'Finland'), server('us1', 'A', 'Virginia 1'), server('us2', 'A', 'Virginia 2')];
  return {
    ...base,
    subscriptions: [subscription('A', 'A', servers)],
    statuses: { ...base.statuses, us1: status('us1', { delayMs: 84, ipInfo: ipInfo('127.0.0.11', 'US', { country: 'United States' }) }) },
    auto: { ...base.auto, groups },
  };
}

const switched: TimelineEntry[] = [
  { type: 'check', at: now - 8000, trigger: 'stall', probe: ['us2', 'us1'], carrying: 'us2' },
  { type: 'probe-result', at: now - 7000, id: 'us2', delay: null, recorded: true, carrying: 'us2' },
  { type: 'probe-result', at: now - 7000, id: 'us1', delay: 84, recorded: true, carrying: 'us2' },
  { type: 'switch', at: now - 7000, from: 'us2', to: 'us1', reason: 'current-silent', carrying: 'us1' },
];

const text = (el: Element | null) => el?.textContent?.replace(/[\u2068\u2069]/g, '') ?? '';

describe('server groups on the Auto timeline', () => {
  it("shows each group's pick with its exit's flag, its ping and why it was chosen, and the group's decisions", () => {
    renderWithStore(<AutoTimeline />, world([group({ timeline: switched })]));
    const item = document.querySelector('[data-group="AI"]')!;
    expect(text(item.querySelector('.group-pick-line'))).toContain('AI: on Virginia 1');
    expect(screen.getByRole('img', { name: 'United States' }).getAttribute('data-country')).toBe('US');
    expect(text(item.querySelector('.ping'))).toBe('84 ms');
    expect(text(item)).toContain('Chosen because the previous pick stopped answering');
    const decisions = screen.getByRole('list', { name: 'Decisions for AI' });
    expect(text(decisions)).toContain('Check (traffic stalled)');
    expect(text(decisions)).toContain('Switched Virginia 2 → Virginia 1');
  });

  it('says when a group is down (its sites refused) or has no member yet', () => {
    renderWithStore(<AutoTimeline />, world([group({ name: 'AI', pick: null, state: 'down' }), group({ name: 'EU', pick: null, state: 'none', members: 0, reason: null })]));
    expect(text(document.querySelector('[data-group="AI"]'))).toContain('No member of AI answers while other servers do: its sites are refused');
    expect(text(document.querySelector('[data-group="EU"]'))).toContain('No member of EU is known yet');
  });

  it('speaks the five languages, isolating names and the ping in right-to-left ones', () => {
    for (const language of ['ru', 'fa', 'ar', 'zh'] as const) {
      renderWithStore(<AutoTimeline />, world([group({})]), { language });
      const line = document.querySelector('[data-group="AI"] .group-pick-line')!;
      expect(line.textContent).not.toContain('Chosen because');
      expect(line.textContent).toContain('\u2068Virginia 1\u2069');
      expect(line.querySelector('.ping')!.textContent!.startsWith('\u2068')).toBe(true);
      cleanup();
    }
  });

  it('shows nothing of groups when there are none', () => {
    renderWithStore(<AutoTimeline />, world([]));
    expect(document.querySelector('.group-picks')).toBeNull();
  });
});
