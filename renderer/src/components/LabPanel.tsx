import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useShallow } from 'zustand/react/shallow';
import { useAppStore } from '../store/context';

/** Demo mode only: break the lab's world (through the host) and watch Auto react. */
export function LabPanel() {
  const { t } = useTranslation();
  const demo = useAppStore((s) => s.demo);
  const currentId = useAppStore((s) => s.connection.serverId);
  const subscriptions = useAppStore((s) => s.subscriptions);
  const { labOffline, labFault, labSetNetwork, labClearFaults } = useAppStore(
    useShallow((s) => ({ labOffline: s.labOffline, labFault: s.labFault, labSetNetwork: s.labSetNetwork, labClearFaults: s.labClearFaults })),
  );
  const [target, setTarget] = useState('');
  const [busy, setBusy] = useState(false);
  if (!demo) return null;

  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await action();
    } finally {
      setBusy(false);
    }
  };
  const blockTarget = target || subscriptions[0]?.servers[0]?.id || '';

  return (
    <section className="panel lab-panel" aria-labelledby="lab-title">
      <header className="panel-header">
        <h2 id="lab-title">{t('lab.title')}</h2>
      </header>
      <p className="muted">{t('lab.intro')}</p>
      <div className="lab-actions">
        <button
          type="button"
          className="button"
          disabled={busy || !currentId}
          title={currentId ? undefined : t('lab.noCurrent')}
          onClick={() => currentId && void run(() => labFault(currentId, 'blackhole'))}
        >
          {t('lab.blackhole')}
        </button>
        <button type="button" className="button" aria-pressed={labOffline} disabled={busy} onClick={() => void run(() => labSetNetwork(!labOffline))}>
          {labOffline ? t('lab.restoreNetwork') : t('lab.cutNetwork')}
        </button>
        <div className="lab-block">
          <label className="field compact">
            <span>{t('lab.blockServer')}</span>
            <select value={blockTarget} onChange={(event) => setTarget(event.target.value)}>
              {subscriptions.map((subscription) => (
                <optgroup key={subscription.id} label={subscription.name}>
                  {subscription.servers.map((server) => (
                    <option key={server.id} value={server.id}>
                      {server.name}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          </label>
          <button type="button" className="button" disabled={busy || !blockTarget} onClick={() => void run(() => labFault(blockTarget, 'blocked-here'))}>
            {t('lab.blockHere')}
          </button>
        </div>
        <button type="button" className="button" disabled={busy} onClick={() => void run(labClearFaults)}>
          {t('lab.clear')}
        </button>
      </div>
    </section>
  );
}
