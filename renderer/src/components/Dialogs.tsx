import { useAppStore } from '../store/context';
import { AddSubscriptionDialog } from './AddSubscriptionDialog';
import { ConfirmEmptyDialog, ConfirmRemoveDialog } from './ConfirmDialogs';
import { ExcludeDialog } from './ExcludeDialog';
import { GroupExcludeDialog } from './GroupExcludeDialog';
import { ServerDetailsDialog } from './ServerDetailsDialog';
import { SettingsDialog } from './SettingsDialog';
import { ShareDialog } from './ShareDialog';
import { SubscriptionSettingsDialog } from './SubscriptionSettingsDialog';

/** The open dialog, if any (one at a time: the dialogs slice is a discriminated union). */
export function Dialogs() {
  const dialog = useAppStore((s) => s.dialog);
  switch (dialog.kind) {
    case 'none':
      return null;
    case 'exclude-servers':
      return <ExcludeDialog key={dialog.subscriptionId} subscriptionId={dialog.subscriptionId} />;
    case 'exclude-group-members':
      return <GroupExcludeDialog key={dialog.group} group={dialog.group} />;
    case 'add-subscription':
      return <AddSubscriptionDialog />;
    case 'settings':
      return <SettingsDialog />;
    case 'server-details':
      return <ServerDetailsDialog key={dialog.serverId} serverId={dialog.serverId} />;
    case 'confirm-empty':
      return <ConfirmEmptyDialog subscriptionId={dialog.subscriptionId} />;
    case 'confirm-remove':
      return <ConfirmRemoveDialog subscriptionId={dialog.subscriptionId} />;
    case 'share':
      return <ShareDialog target={dialog.target} returnTo={dialog.returnTo} />;
    case 'subscription-settings':
      return <SubscriptionSettingsDialog key={dialog.subscriptionId} subscriptionId={dialog.subscriptionId} />;
  }
}
