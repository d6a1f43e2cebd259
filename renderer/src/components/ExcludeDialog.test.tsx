import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppSnapshot } from '../../../shared/ipc/contract';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot, server, subscription } from '../testing/sample-world';
import { Dialogs } from './Dialogs';
import { SubscriptionHeader } from './SubscriptionHeader';

// jsdom role queries and typed input are slow on a busy machine: room to finish, not a sleep.
vi.setConfig({ testTimeout: 20_000 });

afterEach(cleanup);

const NOW = Date.now();

/** Subscription A with three servers, none marked; connected to `a1`. */
function threeServers(excluded: string[] = []): AppSnapshot {
  const base = sampleSnapshot(NOW);
  const servers = [server('a1', 'A', 'Alpha'), server('a2', 'A', 'Bravo'), server('a3', 'A', 'Charlie')];
  return {
    ...base,
    subscriptions: [subscription('A', 'Provider A', servers)],
    statuses: {},
    connection: { ...base.connection, serverId: 'a1' },
    auto: { ...base.auto, subscriptionId: 'A', excluded: { A: excluded } },
  };
}

function open(snapshot: AppSnapshot) {
  const rendered = renderWithStore(
    <>
      <SubscriptionHeader subscriptionId="A" matched={3} />
      <Dialogs />
    </>,
    snapshot,
  );
  const autoButton = screen.getByRole('button', { name: /^Auto/ });
  autoButton.focus();
  fireEvent.keyDown(autoButton, { key: 'F10', shiftKey: true });
  const dialog = screen.getByRole('dialog', { name: 'Servers Auto will not use' });
  return { ...rendered, dialog, autoButton };
}

const box = (dialog: HTMLElement, name: string) => within(dialog).getByRole('checkbox', { name: new RegExp(name) }) as HTMLInputElement;

describe('the exclusion dialog', () => {
  it('is a labelled modal dialog with a search field that has the focus', () => {
    const { dialog } = open(threeServers());
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(document.activeElement).toBe(within(dialog).getByRole('searchbox', { name: 'Search servers' }));
    expect(within(dialog).getAllByRole('checkbox')).toHaveLength(3);
  });

  it('checks the servers already marked', () => {
    const { dialog } = open(threeServers(['a2']));
    expect(box(dialog, 'Bravo').checked).toBe(true);
    expect(box(dialog, 'Alpha').checked).toBe(false);
  });

  it('the last unmarked server cannot be marked: its checkbox is disabled and says why', async () => {
    const { dialog } = open(threeServers());
    await userEvent.click(box(dialog, 'Alpha'));
    expect(box(dialog, 'Charlie').disabled).toBe(false);
    await userEvent.click(box(dialog, 'Bravo'));
    const last = box(dialog, 'Charlie');
    expect(last.disabled).toBe(true);
    const reason = document.getElementById(last.getAttribute('aria-describedby')!);
    expect(reason?.textContent).toBe('At least one server must stay available to Auto.');
    await userEvent.click(box(dialog, 'Bravo'));
    expect(box(dialog, 'Charlie').disabled).toBe(false);
    expect(box(dialog, 'Charlie').hasAttribute('aria-describedby')).toBe(false);
  });

  it('locks the only server of a one-server subscription', () => {
    const snapshot = threeServers();
    snapshot.subscriptions[0] = { ...snapshot.subscriptions[0]!, servers: [server('a1', 'A', 'Alpha')] };
    const { dialog } = open(snapshot);
    expect(box(dialog, 'Alpha').disabled).toBe(true);
  });

  it('Done sends the marks in subscription order and closes; focus goes back to the Auto button', async () => {
    const { dialog, client, autoButton } = open(threeServers());
    await userEvent.click(box(dialog, 'Charlie'));
    await userEvent.click(box(dialog, 'Alpha'));
    expect(within(dialog).getByRole('note').textContent).toMatch(/after Done, Auto moves to the best of the others/);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    expect(client.callsTo('setExcluded')).toEqual([{ subscriptionId: 'A', serverIds: ['a1', 'a3'] }]);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(autoButton);
  });

  it('Cancel sends nothing', async () => {
    const { dialog, client } = open(threeServers());
    await userEvent.click(box(dialog, 'Alpha'));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(client.callsTo('setExcluded')).toEqual([]);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('Escape cancels and sends nothing', async () => {
    const { dialog, client, autoButton } = open(threeServers());
    await userEvent.click(box(dialog, 'Alpha'));
    await userEvent.keyboard('{Escape}');
    expect(client.callsTo('setExcluded')).toEqual([]);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(autoButton);
  });

  it('search narrows the list; the rule still counts every server', async () => {
    const { dialog } = open(threeServers(['a1']));
    await userEvent.type(within(dialog).getByRole('searchbox'), 'char');
    expect(within(dialog).getAllByRole('checkbox')).toHaveLength(1);
    await userEvent.clear(within(dialog).getByRole('searchbox'));
    await userEvent.click(box(dialog, 'Charlie'));
    expect(box(dialog, 'Bravo').disabled).toBe(true);
  });

  it('keeps focus inside while open (Tab wraps)', async () => {
    const { dialog } = open(threeServers());
    const done = within(dialog).getByRole('button', { name: 'Done' });
    done.focus();
    await userEvent.tab();
    expect(dialog.contains(document.activeElement)).toBe(true);
    expect(document.activeElement).toBe(within(dialog).getByRole('searchbox'));
    await userEvent.tab({ shift: true });
    expect(document.activeElement).toBe(done);
  });

  it('shows the host’s refusal and stays open', async () => {
    const { dialog, client } = open(threeServers());
    client.failNext('setExcluded', 'subscription is updating');
    await userEvent.click(box(dialog, 'Alpha'));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    expect(within(dialog).getByRole('alert').textContent).toMatch(/subscription is updating/);
    expect(screen.getByRole('dialog')).toBe(dialog);
  });
});
