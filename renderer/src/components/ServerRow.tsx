import { type KeyboardEvent, memo } from 'react';
import { useTranslation } from 'react-i18next';
import { useShallow } from 'zustand/react/shallow';
import type { ServerId, SubscriptionId } from '../../../shared/domain/server';
import type { ServerStatus } from '../../../shared/domain/status';
import { useFormat } from '../hooks/useFormat';
import { useAppStore } from '../store/context';
import { countryOf, ipInfoDetails, pingClass, selectServerRow } from '../store/servers.selectors';
import { Flag } from './Flag';
import { InfoIcon, RetestIcon } from './icons';

export const ROW_HEIGHT = 58;

/** The ping cell: "63 ms" coloured by thresholds, or what is known instead of a ping. */
export function PingText({ status }: { status: ServerStatus | undefined }) {
  const { t } = useTranslation();
  const format = useFormat();
  if (status?.downForNow) {
    return (
      <span className="ping poor down-for-now" title={t('row.downForNowHint')}>
        {t('row.downForNow')}
      </span>
    );
  }
  if (status?.delayMs !== null && status?.delayMs !== undefined) {
    return (
      <span className={`ping ${pingClass(status.delayMs)}`} title={t('row.ping')}>
        {format.ms(status.delayMs)}
      </span>
    );
  }
  if (status?.testing) return <span className="ping none">{t('row.testing')}</span>;
  if (status?.error) return <span className="ping poor">{t('row.noAnswer')}</span>;
  return <span className="ping none">{t('row.notTested')}</span>;
}

interface ServerRowProps {
  serverId: ServerId;
  subscriptionId: SubscriptionId;
  index: number;
  onNavigate(from: number, key: string): void;
}

/**
 * One server. The row itself connects on click or Enter (choosing a server by hand turns Auto off
 * for its subscription: the host does that); its buttons retest or open the details.
 */
export const ServerRow = memo(function ServerRow({ serverId, subscriptionId, index, onNavigate }: ServerRowProps) {
  const { t, i18n } = useTranslation();
  const row = useAppStore(useShallow((s) => selectServerRow(s, serverId, subscriptionId)));
  const coreName = useAppStore((s) => (s.core ? `${s.core.family} ${s.core.version}` : null));
  const connect = useAppStore((s) => s.connect);
  const testServer = useAppStore((s) => s.testServer);
  const openDialog = useAppStore((s) => s.openDialog);
  const { server, status, unsupported } = row;
  if (!server) return null;

  const ipInfo = status?.ipInfo ?? null;
  const country = countryOf(ipInfo, i18n.language);
  const verdict = status?.reachability ?? null;
  const note = unsupported
    ? /^not supported by /i.test(unsupported)
      ? unsupported
      : t('row.unsupported', { core: coreName ?? t('row.thisCore'), reason: unsupported })
    : status?.error
      ? t('row.failed', { reason: t(`failure.${status.error.kind}`) })
      : status?.notReady
        ? t('row.notReady', { reason: status.notReady })
        : verdict && verdict.verdict !== 'ok'
          ? verdict.reason
          : null;
  const noteDetail = status?.error ? status.error.message : undefined;

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.target !== event.currentTarget) return;
    if (event.key === 'Enter') {
      event.preventDefault();
      void connect(server.id);
    } else if (['ArrowDown', 'ArrowUp', 'Home', 'End', 'PageDown', 'PageUp'].includes(event.key)) {
      event.preventDefault();
      onNavigate(index, event.key);
    }
  };

  const classes = ['server-row'];
  if (row.isCurrent) classes.push('current');
  if (row.isExcluded) classes.push('excluded');
  if (unsupported) classes.push('unsupported');

  return (
    <div
      role="listitem"
      className={classes.join(' ')}
      tabIndex={0}
      data-row-index={index}
      data-server-id={server.id}
      aria-current={row.isCurrent ? 'true' : undefined}
      aria-describedby="row-hint"
      onClick={() => void connect(server.id)}
      onKeyDown={onKeyDown}
    >
      <span className={row.isCurrent ? `current-marker ${row.connectionState}` : 'current-marker'} aria-hidden="true" />
      <div className="row-main">
        <div className="row-title">
          <bdi className="server-name" dir="auto">
            {server.name}
          </bdi>
          <span className="protocol">{server.protocol}</span>
          {row.isCurrent && (
            <span className="chip chip-current">{t(row.connectionState === 'connected' ? 'row.connected' : 'row.connecting')}</span>
          )}
          {row.isExcluded && <span className="chip chip-excluded">{t('row.excluded')}</span>}
        </div>
        <div className={unsupported || status?.error ? 'row-note bad' : 'row-note'} title={noteDetail ?? note ?? undefined}>
          {note}
        </div>
      </div>
      <div className="row-exit" title={ipInfoDetails(ipInfo) || undefined}>
        {country ? (
          <>
            <Flag code={country.code} name={country.name} />
            <span className="country-name">{country.name}</span>
          </>
        ) : ipInfo ? null : (
          <span className="muted">{t('row.unknownCountry')}</span>
        )}
        {ipInfo && (
          <bdi className="exit-ip" dir="ltr">
            {ipInfo.ip}
          </bdi>
        )}
        {ipInfo?.fromCache && (
          <span className="badge badge-unconfirmed" title={t('row.ipNotConfirmedHint')}>
            {t('row.ipNotConfirmed')}
          </span>
        )}
      </div>
      <div className="row-verdict">
        {verdict && (
          <span className={`verdict verdict-${verdict.verdict}`} title={verdict.reason}>
            {t(`verdict.${verdict.verdict}`)}
          </span>
        )}
      </div>
      <div className="row-ping">
        <PingText status={status} />
        {status?.fromCache && !status.downForNow && (
          <span className="badge badge-cache" title={t('row.fromCacheHint')}>
            {t('row.fromCache')}
          </span>
        )}
      </div>
      <div className="row-actions">
        <button
          type="button"
          className="icon-button"
          aria-label={t('row.retest', { name: server.name })}
          title={t('details.retest')}
          disabled={status?.testing}
          onClick={(event) => {
            event.stopPropagation();
            void testServer(server.id);
          }}
          onKeyDown={(event) => event.stopPropagation()}
        >
          <RetestIcon />
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label={t('row.details', { name: server.name })}
          title={t('details.title')}
          onClick={(event) => {
            event.stopPropagation();
            openDialog({ kind: 'server-details', serverId: server.id });
          }}
          onKeyDown={(event) => event.stopPropagation()}
        >
          <InfoIcon />
        </button>
      </div>
    </div>
  );
});
