import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { useShallow } from 'zustand/react/shallow';
import { useFormat } from '../hooks/useFormat';
import { useNow } from '../hooks/useNow';
import { SpeedFigure } from './SpeedTest';
import { isActive, selectTrafficRates } from '../store/connection';
import { selectDirectRates } from '../store/routing';
import { countdownSeconds, shownConnection } from '../../../shared/domain/shown-status';
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
  const networkLostUntil = useAppStore((s) => s.auto.networkLostUntil);
  const networkSilentSince = useAppStore((s) => s.auto.networkSilentSince ?? null);
  // A new verdict reads the clock at once: a tick up to a second old would count a 15 s wait as 16.
  const now = useNow(1000, networkLostUntil);
  const connection = useAppStore((s) => s.connection);
  const active = useAppStore(isActive);
  const serverName = useAppStore((s) => (s.connection.serverId ? selectServer(s, s.connection.serverId)?.name ?? null : null));
  // The current server's speed-test figure, shown beside its name with its age.
  const speed = useAppStore((s) => (s.connection.serverId ? (s.statuses[s.connection.serverId]?.speedTest ?? null) : null));
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

  // The engine's network-loss verdict overrules "Connected": the tunnel is up, the network is not.
  const shown = shownConnection(connection.state, { networkLostUntil, networkSilentSince }, now);
  const lost = shown.kind === 'network-lost';
  const stateText = !lost
    ? t(`connection.state.${connection.state}`)
    : shown.nextTryInMs === null
      ? t('truth.networkLostChecking')
      : shown.nextTryInMs > 0
        ? t('truth.networkLost', { seconds: format.number(countdownSeconds(shown.nextTryInMs)) })
        : t('truth.networkLostNow');
  const sinceText = !lost && connection.state === 'connected' && connection.since ? t('connection.since', { duration: format.duration(now - connection.since) }) : null;
  const showServer = serverName !== null && active;
  // Direct traffic exists only when a region preset sends some past the server.
  const showDirect = directRates.reported && presetInForce !== 'global';
  const upText = `${t('connection.upload')} ${format.rate(rates.upBytesPerSecond)}`;
  const downText = `${t('connection.download')} ${format.rate(rates.downBytesPerSecond)}`;
  const directText = `${t('routing.directRates')}: ${format.rate(directRates.upBytesPerSecond)} / ${format.rate(directRates.downBytesPerSecond)}`;
  const errorText =
    connection.error && connection.state !== 'connected' ? t('connection.error', { error: connection.error }) : !core && ready ? t('connection.noCore') : null;
  const modeNote = mode === 'system-wide' && !active && !connection.error ? t('mode.asksAdmin') : null;
  // Everything the details line holds, in one tooltip: what its width leaves out is still here.
  const detailsTitle = [
    errorText,
    modeNote,
    `${t('mode.label')}: ${t(`mode.name.${mode}`)}`,
    t(`routing.presetName.${presetInForce}`),
    `${upText}, ${downText}`,
    showDirect ? directText : null,
    connection.state === 'connected' && connection.httpProxy ? `${t('connection.httpProxy')}: ${connection.httpProxy}` : null,
    connection.state === 'connected' && connection.socksProxy ? `${t('connection.socksProxy')}: ${connection.socksProxy}` : null,
  ]
    .filter(Boolean)
    .join('\n');

  return (
    <div className={`connection-bar state-${lost ? 'network-lost' : connection.state}`}>
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
        {/* First priority: the state and the server. The name gives way first, then the duration; the tooltip has all of it. */}
        <span className="state-line" title={[stateText, showServer ? serverName : null, sinceText].filter(Boolean).join(' · ')}>
          <span className="state-dot" aria-hidden="true" />
          <strong role="status">{stateText}</strong>
          {showServer && (
            <span className="via">
              <Trans i18nKey="connection.via" values={{ server: serverName }} components={{ server: <ServerName name={serverName} /> }} />
            </span>
          )}
          {showServer && speed && <SpeedFigure result={speed} />}
          {sinceText && <span className="since muted">{sinceText}</span>}
        </span>
        {/*
          The second line, in priority order: mode, rates, then the local ports. It is one line
          high and wraps: an item that does not fit falls onto a hidden line, and the line's
          tooltip still says it.
        */}
        <span className="details-line" title={detailsTitle}>
          {errorText && <span className="connection-error">{errorText}</span>}
          {modeNote && <span className="mode-note muted">{modeNote}</span>}
          <button type="button" className={`mode-chip mode-${mode}`} title={t(`mode.hint.${mode}`)} aria-label={`${t('mode.label')}: ${t(`mode.name.${mode}`)}`} onClick={() => openDialog({ kind: 'settings', focus: 'mode' })}>
            {t(`mode.short.${mode}`)}
          </button>
          <span className="routing-chip" title={t(`routing.presetName.${presetInForce}`)}>
            {t('routing.inForce', { preset: t(`routing.short.${presetInForce}`) })}
          </span>
          <span className="rates" role="group" aria-label={t('connection.rates')}>
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
            {showDirect && (
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
          </span>
          {connection.state === 'connected' && connection.httpProxy && <CopyField kind="HTTP" label={t('connection.httpProxy')} value={connection.httpProxy} />}
          {connection.state === 'connected' && connection.socksProxy && <CopyField kind="SOCKS5" label={t('connection.socksProxy')} value={connection.socksProxy} />}
        </span>
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
