import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GroupPickSnapshot } from '../../../shared/domain/auto';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot, server, subscription } from '../testing/sample-world';
import { AutoTimeline } from './AutoTimeline';
import { Dialogs } from './Dialogs';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

const now = Date.now();
const group = (patch: Partial<GroupPickSnapshot>): GroupPickSnapshot => ({
  name: 'AI',
  pick: 'us1',
  members: 3,
  memberIds: ['us1', 'us2', 'us3'],
  state: 'on',
  reason: 'auto-on',
  excluded: [],
  excludedInAuto: [],
  returnCandidate: null,
  networkLostUntil: null,
  timeline: [],
  ...patch,
});

function world(g: GroupPickSnapshot) {
  const base = sampleSnapshot(now);
  const servers = [server('fi', 'A', 'Finland'), server('us1', 'A', 'Virginia 1'), server('us2', 'A', 'Virginia 2'), server('us3', 'A', 'Oregon')];
  return { ...base, subscriptions: [subscription('A', 'A', servers)], auto: { ...base.auto, groups: [g] } };
}

const text = (el: Element | null) => el?.textContent?.replace(/[\u2068\u2069]/g, '') ?? '';

function open(g: GroupPickSnapshot, language?: 'ru' | 'fa' | 'ar' | 'zh') {
  const rendered = renderWithStore(
    <>
      <AutoTimeline />
      <Dialogs />
    </>,
    world(g),
    language ? { language } : {},
  );
  return rendered;
}

describe("a server group's exclusions", () => {
  it('the group’s view says how many members it does not use and opens the list of its members', async () => {
    open(group({ excluded: ['us2'], excludedInAuto: ['us3'] }));
    expect(text(document.querySelector('[data-group="AI"]'))).toContain('2 of 3 members not used');
    await userEvent.click(screen.getByRole('button', { name: 'Exclude members of AI' }));
    const dialog = screen.getByRole('dialog', { name: 'Servers this group will not use' });
    expect(text(dialog)).toContain('Group: AI');
    expect(within(dialog).getAllByRole('checkbox').map((box) => [box.getAttribute('aria-describedby') ?? '', (box as HTMLInputElement).checked, (box as HTMLInputElement).disabled])).toEqual([
      // us1: the last member neither list marks, locked with the reason.
      ['group-exclude-lock-reason', false, true],
      ['', true, false],
      // us3: excluded from Auto in its subscription, shown checked and locked, with where to unmark it.
      ['group-exclude-in-auto-hint', true, true],
    ]);
    expect(text(dialog)).toContain('At least one member must stay available to the group.');
    expect(text(dialog)).toContain('excluded from Auto');
    expect(text(dialog)).toContain('Marked in its subscription’s list of servers Auto will not use');
  });

  it('Done sends the group’s own marks (not the ones made in Auto) and says when the pick is among them', async () => {
    const { client } = open(group({ excludedInAuto: ['us3'] }));
    await userEvent.click(screen.getByRole('button', { name: 'Exclude members of AI' }));
    const dialog = screen.getByRole('dialog', { name: 'Servers this group will not use' });
    await userEvent.click(within(dialog).getByRole('checkbox', { name: /Virginia 1/ }));
    expect(text(dialog)).toContain('The group is on a marked server: after Done it moves to the best of the other members.');
    // Now us2 is the last member left to the group: it cannot be marked.
    expect((within(dialog).getByRole('checkbox', { name: /Virginia 2/ }) as HTMLInputElement).disabled).toBe(true);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    expect(client.callsTo('setGroupExcluded')).toEqual([{ group: 'AI', serverIds: ['us1'] }]);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('every member excluded from Auto: nothing is locked for the last one, and it says the group chooses among them', async () => {
    open(group({ excludedInAuto: ['us1', 'us2', 'us3'] }));
    await userEvent.click(screen.getByRole('button', { name: 'Exclude members of AI' }));
    const dialog = screen.getByRole('dialog', { name: 'Servers this group will not use' });
    expect(text(dialog)).toContain('Every member is excluded from Auto: the group chooses among them');
    expect(text(dialog)).not.toContain('At least one member must stay available');
  });

  it('Cancel sends nothing', async () => {
    const { client } = open(group({}));
    await userEvent.click(screen.getByRole('button', { name: 'Exclude members of AI' }));
    await userEvent.click(screen.getByRole('checkbox', { name: /Oregon/ }));
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(client.callsTo('setGroupExcluded')).toEqual([]);
  });

  it('speaks the five languages, the group’s name isolated in right-to-left ones', async () => {
    const titles = { ru: 'Серверы, которые группа не использует', fa: 'سرورهایی که این گروه از آن‌ها استفاده نمی‌کند', ar: 'الخوادم التي لن تستخدمها هذه المجموعة', zh: '该组不会使用的服务器' };
    for (const language of ['ru', 'fa', 'ar', 'zh'] as const) {
      open(group({ excluded: ['us2'] }), language);
      await userEvent.click(document.querySelector<HTMLButtonElement>('.group-pick-marks button')!);
      const dialog = screen.getByRole('dialog', { name: titles[language] });
      expect(dialog.querySelector('bdi')?.textContent).toBe('AI');
      expect(text(dialog)).not.toContain('Servers this group will not use');
      cleanup();
    }
  });
});
