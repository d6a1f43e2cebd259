/** Which dialog is open: one at a time, each kind with exactly the data it needs. */
import type { ServerId, SubscriptionId } from '../../../shared/domain/server';
import type { SliceDeps } from './types';

export type Dialog =
  | { kind: 'none' }
  | { kind: 'exclude-servers'; subscriptionId: SubscriptionId }
  /** The members a server group will not pick, by the group's name. */
  | { kind: 'exclude-group-members'; group: string }
  | { kind: 'add-subscription' }
  /** `focus`: the field to bring into view and focus (the mode chip opens Settings at the mode). */
  | { kind: 'settings'; focus?: 'mode' }
  | { kind: 'server-details'; serverId: ServerId }
  | { kind: 'confirm-empty'; subscriptionId: SubscriptionId }
  | { kind: 'confirm-remove'; subscriptionId: SubscriptionId }
  | { kind: 'subscription-settings'; subscriptionId: SubscriptionId }
  /** `returnTo`: the dialog it was opened from, which Close and Escape go back to (a server's details). */
  | { kind: 'share'; target: ShareTarget; returnTo?: { kind: 'server-details'; serverId: ServerId } };

/** What a share dialog shows: one server's link, or a subscription's address. */
export type ShareTarget = { serverId: ServerId } | { subscriptionId: SubscriptionId };

export interface DialogsSlice {
  dialog: Dialog;
  openDialog(dialog: Exclude<Dialog, { kind: 'none' }>): void;
  closeDialog(): void;
}

export const dialogsInitialState: Pick<DialogsSlice, 'dialog'> = { dialog: { kind: 'none' } };

export function createDialogsSlice({ set }: SliceDeps): DialogsSlice {
  return {
    ...dialogsInitialState,
    openDialog: (dialog) => set({ dialog }),
    closeDialog: () => set({ dialog: { kind: 'none' } }),
  };
}

/** A dialog that refers to something the host has since removed is closed rather than shown empty. */
export function dialogStillValid(dialog: Dialog, subscriptionIds: ReadonlySet<SubscriptionId>, serverIds: ReadonlySet<ServerId>): boolean {
  switch (dialog.kind) {
    case 'exclude-servers':
    case 'confirm-empty':
    case 'confirm-remove':
    case 'subscription-settings':
      return subscriptionIds.has(dialog.subscriptionId);
    case 'server-details':
      return serverIds.has(dialog.serverId);
    case 'share':
      return 'serverId' in dialog.target ? serverIds.has(dialog.target.serverId) : subscriptionIds.has(dialog.target.subscriptionId);
    default:
      return true;
  }
}
