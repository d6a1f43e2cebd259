import { type KeyboardEvent, memo, type MouseEvent, type PointerEvent, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useShallow } from 'zustand/react/shallow';
import type { ServerId, SubscriptionId } from '../../../shared/domain/server';
import type { Verdict } from '../../../shared/domain/status';
import type { ListStatus } from '../../../shared/ipc/contract';
import { measuredBeforeLoss, networkLostSince } from '../../../shared/domain/shown-status';
import { useFormat } from '../hooks/useFormat';
import { useNow } from '../hooks/useNow';
import { usePressActions } from '../hooks/useLongPress';
import type { RowMenuRequest } from './RowMenu';
import { useAppStore, useAppStoreApi } from '../store/context';
import { describeVerdict, failureText } from '../format/reasons';
import { transferRowNote } from '../format/transfer';
import { countryOf, ipInfoDetails, pingClass, selectServerIndex, selectServerRow } from '../store/servers.selectors';
import { Flag } from './Flag';
import { InfoIcon, RetestIcon } from './icons';
import { FlaggedName } from './FlaggedName';

export const ROW_HEIGHT = 58;

interface PingProps {
  delayMs: number | null | undefined;
  downForNow: boolean;
  testing: boolean;
  failed: boolean;
}

/** The ping: "63 ms" coloured by thresholds, or what is known instead of a ping. */
export const PingValue = memo(function PingValue({ delayMs, downForNow, testing, failed }: PingProps) {
  const { t } = useTranslation();
  const format = useFormat();
  if (downForNow) {
    return (
      <span className="ping poor down-for-now" title={t('row.downForNowHint')}>
        {t('row.downForNow')}
      </span>
    );
  }
  if (delayMs !== null && delayMs !== undefined) {
    return (
      <span className={`ping ${pingClass(delayMs)}`} title={t('row.ping')}>
        {format.ms(delayMs)}
      </span>
    );
  }
  if (testing) return <span className="ping none">{t('row.testing')}</span>;
  if (failed) return <span className="ping poor">{t('row.noAnswer')}</span>;
  return <span className="ping none">{t('row.notTested')}</span>;
});

/** The ping of a status (for dialogs that hold the whole status). */
export function PingText({ status }: { status: ListStatus | undefined }) {
  return <PingValue delayMs={status?.delayMs} downForNow={status?.downForNow ?? false} testing={status?.testing ?? false} failed={Boolean(status?.error)} />;
}

/**
 * A ping measured before the network was lost: greyed, with its age (which ticks, so only these
 * few cells hold a clock). It says what the server did then, not what it does now.
 */
function StalePing({ delayMs, testedAt }: { delayMs: number | null | undefined; testedAt: number }) {
  const { t } = useTranslation();
  const format = useFormat();
  const now = useNow(1000);
  const age = format.duration(Math.max(0, now - testedAt));
  return (
    <>
      <span className="ping stale" title={t('truth.stalePing', { age })}>
        {delayMs !== null && delayMs !== undefined ? format.ms(delayMs) : t('row.noAnswer')}
      </span>
      <span className="badge badge-stale">{t('truth.staleAge', { age })}</span>
    </>
  );
}

const PingCell = memo(function PingCell(props: PingProps & { fromCache: boolean; staleSince: number | null }) {
  const { t } = useTranslation();
  if (props.staleSince !== null) {
    return (
      <div className="row-ping" data-stale="true">
        <StalePing delayMs={props.delayMs} testedAt={props.staleSince} />
      </div>
    );
  }
  return (
    <div className="row-ping">
      <PingValue {...props} />
      {props.fromCache && !props.downForNow && (
        <span className="badge badge-cache" title={t('row.fromCacheHint')}>
          {t('row.fromCache')}
        </span>
      )}
    </div>
  );
});

interface ExitProps {
  countryCode: string | undefined;
  countryName: string | undefined;
  ip: string | undefined;
  unconfirmed: boolean;
  details: string;
}

/** Exit country (flag + name) and exit IP; ASN, provider and city in the tooltip. */
const ExitCell = memo(function ExitCell({ countryCode, countryName, ip, unconfirmed, details }: ExitProps) {
  const { t } = useTranslation();
  return (
    <div className="row-exit" title={details || undefined}>
      <div className="exit-line">
        {countryCode && countryName ? (
          <>
            <Flag code={countryCode} name={countryName} />
            <span className="country-name">{countryName}</span>
          </>
        ) : (
          <span className="muted">{t('row.unknownCountry')}</span>
        )}
      </div>
      {ip && (
        <div className="exit-line">
          <bdi className="exit-ip" dir="ltr">
            {ip}
          </bdi>
          {unconfirmed && (
            <span className="badge badge-unconfirmed" title={t('row.ipNotConfirmedHint')}>
              {t('row.ipNotConfirmed')}
            </span>
          )}
        </div>
      )}
    </div>
  );
});

const VerdictCell = memo(function VerdictCell({ verdict, words }: { verdict: Verdict | undefined; words: string | undefined }) {
  const { t } = useTranslation();
  return (
    <div className="row-verdict">
      {verdict && (
        <span className={`verdict verdict-${verdict}`} title={words}>
          {t(`verdict.${verdict}`)}
        </span>
      )}
    </div>
  );
});

/** "not supported by v2ray 4.34.0: hysteria2 needs Xray" (the host's words) → the core and the reason. */
function unsupportedParts(text: string): { core: string; reason: string } | null {
  const match = /^not supported by (.+?): (.+)$/is.exec(text.trim());
  return match ? { core: match[1]!, reason: match[2]! } : null;
}

interface ServerRowProps {
  serverId: ServerId;
  subscriptionId: SubscriptionId;
  index: number;
  /** Moves the focus to another row; `extend`: Shift was held, the selection grows to it. */
  onNavigate(from: number, key: string, extend?: boolean): void;
  /** Opens the row's menu (right-click, long-press, the menu key or Shift+F10). */
  onMenu(request: RowMenuRequest): void;
}

/**
 * One server. The row itself connects on click or Enter (choosing a server by hand turns Auto off
 * for its subscription: the host does that); its buttons retest or open the details. Ctrl/Cmd-click
 * or Space selects it, Shift-click or Shift+arrow a range, Ctrl/Cmd+A every row shown, Escape none
 * (store/selection.ts). The cells are memoized on plain values, so a burst of ping updates
 * repaints only the ping cells.
 */
export const ServerRow = memo(function ServerRow({ serverId, subscriptionId, index, onNavigate, onMenu }: ServerRowProps) {
  const { t, i18n } = useTranslation();
  const format = useFormat();
  const store = useAppStoreApi();
  const row = useAppStore(useShallow((s) => selectServerRow(s, serverId, subscriptionId)));
  const coreName = useAppStore((s) => (s.core ? `${s.core.family} ${s.core.version}` : null));
  const servers = useAppStore(selectServerIndex);
  const trustedCheckerId = useAppStore((s) => s.settings.trustedCheckerId);
  const lostSince = useAppStore((s) => networkLostSince(s.auto));
  const selected = useAppStore((s) => s.selection.ids.includes(serverId));
  const hasSelection = useAppStore((s) => s.selection.ids.length > 0);
  const element = useRef<HTMLDivElement>(null);
  /** Where the pointer opened the menu; null from the keyboard (then it opens at the row). */
  const point = useRef<{ x: number; y: number } | null>(null);
  const connect = () => {
    store.getState().select({ kind: 'only', id: serverId });
    void store.getState().connect(serverId);
  };
  const openMenu = () => {
    const box = element.current?.getBoundingClientRect();
    const at = point.current ?? { x: (box?.left ?? 0) + 24, y: (box?.bottom ?? 0) - 8 };
    point.current = null;
    onMenu({ serverId, subscriptionId, ...at });
  };
  const press = usePressActions(connect, openMenu);
  const { server, status, unsupported } = row;
  if (!server) return null;

  const ipInfo = status?.ipInfo ?? null;
  const country = countryOf(ipInfo, i18n.language);
  // While the network is lost no verdict can be trusted: it shows as unknown, and says why.
  const verdict = lostSince !== null ? null : (status?.reachability ?? null);
  const stale = measuredBeforeLoss(status?.testedAt ?? null, lostSince);
  const verdictWords =
    verdict &&
    describeVerdict(verdict, { t, language: i18n.language, server: server.name, nameOf: (id) => servers.get(id)?.name ?? id, trustedCheckerId });
  const core = unsupported ? unsupportedParts(unsupported) : null;
  // A ping that answers says nothing of a server whose traffic freezes: that comes before the verdict.
  const transfer = transferRowNote(t, format, status?.transfer ?? null);
  const note = unsupported
    ? t('row.unsupported', { core: core?.core ?? coreName ?? t('row.thisCore'), reason: core?.reason ?? unsupported })
    : status?.error
      ? t('row.failed', { reason: failureText(t, status.error.kind, status.error.message) })
      : status?.notReady
        ? t('row.notReady', { reason: status.notReady })
        : transfer
          ? transfer.withTime
          : verdictWords && verdict?.verdict !== 'ok'
            ? verdictWords.summary
            : null;
  const transferNoted = transfer !== null && note === transfer.withTime;
  // The host's own words (English), for a closer look: the prober's detail, the verdict's reasoning.
  const noteDetail = status?.error
    ? status.error.message
    : transferNoted
      ? status?.transfer?.detail
      : note === verdictWords?.summary
        ? verdictWords?.detail
        : unsupported;
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.target !== event.currentTarget) return;
    point.current = null;
    press.onKeyDown(event);
    if (event.defaultPrevented) return;
    const select = store.getState().select;
    if (event.key === 'Enter') {
      event.preventDefault();
      connect();
    } else if (event.key === ' ') {
      event.preventDefault();
      select({ kind: 'toggle', id: serverId });
    } else if (event.key.toLowerCase() === 'a' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      select({ kind: 'all' });
    } else if (event.key === 'Escape' && hasSelection) {
      event.preventDefault();
      select({ kind: 'clear' });
    } else if (['ArrowDown', 'ArrowUp', 'Home', 'End', 'PageDown', 'PageUp'].includes(event.key)) {
      event.preventDefault();
      onNavigate(index, event.key, event.shiftKey);
    }
  };
  const onClick = (event: MouseEvent) => {
    if (event.shiftKey || event.ctrlKey || event.metaKey) {
      event.preventDefault();
      // Shift-click also keeps the browser from selecting the text between the two clicks.
      window.getSelection()?.removeAllRanges();
      store.getState().select(event.shiftKey ? { kind: 'range', id: serverId } : { kind: 'toggle', id: serverId });
      return;
    }
    press.onClick(event);
  };

  const classes = ['server-row'];
  if (row.isCurrent) classes.push('current');
  if (row.isExcluded) classes.push('excluded');
  if (unsupported) classes.push('unsupported');
  if (selected) classes.push('selected');

  return (
    <div
      role="listitem"
      className={classes.join(' ')}
      tabIndex={0}
      data-row-index={index}
      data-server-id={server.id}
      data-selected={selected ? 'true' : undefined}
      aria-current={row.isCurrent ? 'true' : undefined}
      aria-describedby="row-hint row-menu-hint"
      aria-haspopup="menu"
      ref={element}
      onClick={onClick}
      onKeyDown={onKeyDown}
      onPointerDown={(event: PointerEvent) => {
        point.current = { x: event.clientX, y: event.clientY };
        press.onPointerDown(event);
      }}
      onPointerUp={press.onPointerUp}
      onPointerLeave={press.onPointerLeave}
      onPointerCancel={press.onPointerCancel}
      onContextMenu={(event: MouseEvent) => {
        point.current = { x: event.clientX, y: event.clientY };
        press.onContextMenu(event);
      }}
    >
      <span className={row.isCurrent ? `current-marker ${row.connectionState}` : 'current-marker'} aria-hidden="true" />
      <div className="row-main">
        <div className="row-title">
          <bdi className="server-name" dir="auto">
            <FlaggedName name={server.name} />
          </bdi>
          <span className="protocol">{server.protocol}</span>
          {row.isCurrent && (
            <span className="chip chip-current">{t(row.connectionState === 'connected' ? 'row.connected' : 'row.connecting')}</span>
          )}
          {row.isExcluded && <span className="chip chip-excluded">{t('row.excluded')}</span>}
          {selected && <span className="visually-hidden">{t('selection.rowSelected')}</span>}
        </div>
        <div
          className={unsupported || status?.error || (transferNoted && transfer.tone === 'bad') ? 'row-note bad' : 'row-note'}
          data-transfer={transferNoted ? status?.transfer?.verdict : undefined}
          title={noteDetail ?? note ?? undefined}
        >
          {note}
        </div>
      </div>
      <ExitCell
        countryCode={country?.code}
        countryName={country?.name}
        ip={ipInfo?.ip}
        unconfirmed={ipInfo?.fromCache ?? false}
        details={ipInfoDetails(ipInfo)}
      />
      {lostSince !== null ? <VerdictCell verdict="unknown" words={t('truth.verdictUnknown')} /> : <VerdictCell verdict={verdict?.verdict} words={verdictWords?.summary} />}
      <PingCell
        delayMs={status?.delayMs}
        downForNow={status?.downForNow ?? false}
        testing={status?.testing ?? false}
        failed={Boolean(status?.error)}
        fromCache={status?.fromCache ?? false}
        staleSince={stale ? (status?.testedAt ?? null) : null}
      />
      <div className="row-actions">
        <button
          type="button"
          className="icon-button"
          aria-label={t('row.retest', { name: server.name })}
          title={t('details.retest')}
          disabled={status?.testing}
          onClick={(event) => {
            event.stopPropagation();
            void store.getState().testServer(server.id);
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
            store.getState().openDialog({ kind: 'server-details', serverId: server.id });
          }}
          onKeyDown={(event) => event.stopPropagation()}
        >
          <InfoIcon />
        </button>
      </div>
    </div>
  );
});
