import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { useShallow } from 'zustand/react/shallow';
import { useFormat } from '../hooks/useFormat';
import { useNow } from '../hooks/useNow';
import { isActive, selectTrafficRates } from '../store/connection';
import { selectDirectRates } from '../store/routing';
import { useAppStore } from '../store/context';
import { selectServer } from '../store/servers.selectors';
import { ArrowDownIcon, ArrowUpIcon, CheckIcon, CopyIcon, PowerIcon } from './icons';
import { FlaggedName } from './FlaggedName';

/** "socks5://127.0.0.1:10808" → "127.0.0.1:10808": the kind is said by the label beside it. */
function withoutScheme(url: string): string {
  return url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
}

/**
 * A local proxy address: its kind, host:port and a copy button (which copies the whole URL). When
 * the bar is narrow the host:port gives way (CSS container query) and the kind and the button stay;
 * the full address is always in the tooltip.
 */
function CopyField({ kind, label, value }: { kind: string; label: string; value: string }) {
  const { t } = useTranslation();
  const pushNotice = useAppStore((s) => s.pushNotice);
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error(t('notice.copyUnavailable'));
      await navigator.clipboard.writeText(value);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch (error) {
      pushNotice({ tone: 'error', what: 'copy', text: error instanceof Error ? error.message : String(error) });
    }
  };
  return (
    <span className="proxy-field" title={`${label}: ${value}`}>
      <span className="proxy-kind">{kind}</span>
      <bdi className="proxy-value" dir="ltr">
        {withoutScheme(value)}
      </bdi>
      <button type="button" className={copied ? 'icon-button small copied' : 'icon-button small'} aria-label={t('connection.copy', { what: label })} onClick={copy}>
        {copied ? <CheckIcon /> : <CopyIcon />}
      </button>
      <span className="visually-hidden" role="status">
        {copied ? t('connection.copied') : ''}
      </span>
    </span>
  );
}

/** Connect / disconnect, where the traffic goes, the local proxy addresses and the rates. */
export function ConnectionBar() {
  const { t } = useTranslation();
  const format = useFormat();
  const now = useNow(1000);
  const connection = useAppStore((s) => s.connection);
  const active = useAppStore(isActive);
  const serverName = useAppStore((s) => (s.connection.serverId ? selectServer(s, s.connection.serverId)?.name ?? null : null));
  const rates = useAppStore(useShallow(selectTrafficRates));
  const directRates = useAppStore(useShallow(selectDirectRates));
  const presetInForce = useAppStore((s) => s.routing.presetInForce);
  const core = useAppStore((s) => s.core);
  const ready = useAppStore((s) => s.ready);
  const mode = useAppStore((s) => s.settings.mode);
  const openDialog = useAppStore((s) => s.openDialog);
  const { connect, disconnect } = useAppStore(useShallow((s) => ({ connect: s.connect, disconnect: s.disconnect })));
  const [busy, setBusy] = useState(false);

  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await action();
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className={`connection-bar state-${connection.state}`}>
      <button
        type="button"
        className={active ? 'power-button on' : 'power-button'}
        disabled={busy || !ready}
        onClick={() => void run(active ? disconnect : () => connect())}
      >
        <PowerIcon />
        <span>{active ? t('connection.disconnect') : t('connection.connect')}</span>
      </button>
      <div className="connection-status">
        <span className="state-line">
          <span className="state-dot" aria-hidden="true" />
          <strong role="status">{t(`connection.state.${connection.state}`)}</strong>
          {serverName && active && (
            <span className="via" title={serverName}>
              <Trans i18nKey="connection.via" values={{ server: serverName }} components={{ server: <ServerName name={serverName} /> }} />
            </span>
          )}
          {connection.state === 'connected' && connection.since && (
            <span className="since muted">{t('connection.since', { duration: format.duration(now - connection.since) })}</span>
          )}
          <button type="button" className={`mode-chip mode-${mode}`} title={t(`mode.hint.${mode}`)} aria-label={`${t('mode.label')}: ${t(`mode.name.${mode}`)}`} onClick={() => openDialog({ kind: 'settings' })}>
            {t(`mode.short.${mode}`)}
          </button>
        </span>
        {mode === 'system-wide' && !active && !connection.error && <span className="mode-note muted">{t('mode.asksAdmin')}</span>}
        {connection.state === 'connected' && (connection.httpProxy || connection.socksProxy) ? (
          <span className="proxies">
            {connection.httpProxy && <CopyField kind="HTTP" label={t('connection.httpProxy')} value={connection.httpProxy} />}
            {connection.socksProxy && <CopyField kind="SOCKS5" label={t('connection.socksProxy')} value={connection.socksProxy} />}
          </span>
        ) : connection.error && connection.state !== 'connected' ? (
          <span className="connection-error">{t('connection.error', { error: connection.error })}</span>
        ) : !core && ready ? (
          <span className="connection-error">{t('connection.noCore')}</span>
        ) : null}
      </div>
      <span className="routing-chip" title={t(`routing.presetName.${presetInForce}`)}>
        {t('routing.inForce', { preset: t(`routing.short.${presetInForce}`) })}
      </span>
      <div className="rates" role="group" aria-label={t('connection.rates')}>
        <span className="rate" title={t('connection.upload')}>
          <ArrowUpIcon />
          <span className="visually-hidden">{t('connection.upload')}</span>
          <span className="rate-value">{format.rate(rates.upBytesPerSecond)}</span>
        </span>
        <span className="rate" title={t('connection.download')}>
          <ArrowDownIcon />
          <span className="visually-hidden">{t('connection.download')}</span>
          <span className="rate-value">{format.rate(rates.downBytesPerSecond)}</span>
        </span>
        {directRates.reported && (
          <span className="rate direct" title={t('routing.directRates')}>
            <span>{t('routing.direct')}</span>
            <ArrowUpIcon />
            <span className="visually-hidden">{t('connection.upload')}</span>
            <span className="rate-value">{format.rate(directRates.upBytesPerSecond)}</span>
            <ArrowDownIcon />
            <span className="visually-hidden">{t('connection.download')}</span>
            <span className="rate-value">{format.rate(directRates.downBytesPerSecond)}</span>
          </span>
        )}
      </div>
    </div>
  );
}

/** The server's name in "via …", flags drawn; it stands in for the translation's own text of the name. */
function ServerName({ name }: { name: string }) {
  return (
    <bdi dir="auto">
      <FlaggedName name={name} />
    </bdi>
  );
}
