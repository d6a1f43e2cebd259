import { lazy, type ReactNode, Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useShallow } from 'zustand/react/shallow';
import { hostPort, type ServerId } from '../../../shared/domain/server';
import type { Ipv6Support, ServerStatus } from '../../../shared/domain/status';
import { useFormat } from '../hooks/useFormat';
import { useNow } from '../hooks/useNow';
import { useAppStore } from '../store/context';
import { countryOf, selectServer, selectServerIndex } from '../store/servers.selectors';
import { directionOf, selectLanguage } from '../store/ui';
import { describeVerdict, failureText } from '../format/reasons';
import { Flag } from './Flag';
import { Modal } from './Modal';
import { PingText } from './ServerRow';
import { FlaggedName } from './FlaggedName';
import { SpeedFigure } from './SpeedTest';
import { TransferField, TransferWarning } from './TransferField';
import { ServerAntiDpi } from './ServerAntiDpi';
import { ServerChain } from './ServerChain';
import { DirectTests } from './DirectTests';
import { speedShown } from '../format/speed';

// recharts is most of the bundle and only this dialog draws a chart: it loads on first open.
const PingChart = lazy(() => import('./PingChart').then((module) => ({ default: module.PingChart })));

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

/** "supported (verified)" and friends: whether IPv6 goes through the server, and how that is known. */
function Ipv6Field({ ipv6, now }: { ipv6: Ipv6Support | null; now: number }) {
  const { t } = useTranslation();
  const format = useFormat();
  if (!ipv6) return <Field label={t('details.ipv6')}>{t('ipv6.notChecked')}</Field>;
  const state = ipv6.supported === null ? 'unknown' : ipv6.supported ? 'supported' : 'refused';
  return (
    <Field label={t('details.ipv6')}>
      <span className={`ipv6 ipv6-${state}`} data-ipv6={state}>
        {t('ipv6.value', { state: t(`ipv6.${state}`), source: t(`ipv6.${ipv6.source}`) })}
      </span>
      {ipv6.at !== null && <span className="muted"> · {format.relative(ipv6.at, now)}</span>}{' '}
      {ipv6.fromCache && (
        <span className="badge badge-cache" title={t('ipv6.fromCacheHint')}>
          {t('row.fromCache')}
        </span>
      )}
      <br />
      <small className="muted">
        <bdi>{ipv6.detail}</bdi>
      </small>
    </Field>
  );
}

const SPEED_SOURCE_KEY = { 'on-request': 'details.speedOnRequest', 'speed-test': 'details.speedSpeedTest', 'transfer-test': 'details.speedTransferTest' } as const;

/** The one download speed: the newest of the download on request, the speed test and the transfer test, with what was downloaded and when. */
function SpeedText({ status, now }: { status: Parameters<typeof speedShown>[0]; now: number }) {
  const { t } = useTranslation();
  const format = useFormat();
  const speed = speedShown(status);
  if (!speed) return <>{t('details.notMeasured')}</>;
  const what = t(SPEED_SOURCE_KEY[speed.source], { size: speed.bytes === null ? '' : format.bytes(speed.bytes) });
  return (
    <span className="speed" data-speed-source={speed.source}>
      {format.rate(speed.bytesPerSecond)}{' '}
      <small className="muted">
        ({speed.at === null ? what : t('details.speedMeasured', { what, age: format.relative(speed.at, now) })})
      </small>
    </span>
  );
}

/** A server up close: ping history, statistics, exit IP info, IPv6, reachability, throughput and its anti-DPI override. */
export function ServerDetailsDialog({ serverId }: { serverId: ServerId }) {
  const { t, i18n } = useTranslation();
  const format = useFormat();
  const now = useNow(30_000);
  const server = useAppStore((s) => selectServer(s, serverId));
  const status = useAppStore((s) => s.statuses[serverId]);
  // Which core carries a server the main core cannot run, in the host's words (shown as they are, like core reasons).
  const carried = useAppStore((s) => s.carried[serverId]);
  const history = useAppStore((s) => s.history[serverId]);
  const subscriptionName = useAppStore((s) => s.subscriptions.find((x) => x.id === server?.subscriptionId)?.name ?? '');
  const index = useAppStore(selectServerIndex);
  const trustedCheckerId = useAppStore((s) => s.settings.trustedCheckerId);
  const rtl = useAppStore((s) => directionOf(selectLanguage(s)) === 'rtl');
  const actions = useAppStore(
    useShallow((s) => ({
      loadHistory: s.loadHistory,
      loadServerStatus: s.loadServerStatus,
      testServer: s.testServer,
      measureThroughput: s.measureThroughput,
      connect: s.connect,
      openDialog: s.openDialog,
      closeDialog: s.closeDialog,
    })),
  );
  const [measuring, setMeasuring] = useState(false);
  const testedAt = status?.testedAt ?? null;

  // The statistics and last measurements are not in the list's status: asked for here, kept
  // only while the dialog is open.
  const [whole, setWhole] = useState<ServerStatus | null>(null);

  // Fetched on open and again whenever a new result lands, so the chart follows the tests.
  useEffect(() => {
    let open = true;
    void actions.loadHistory(serverId);
    void actions.loadServerStatus(serverId).then((result) => {
      if (open && result.ok) setWhole(result.value);
    });
    return () => {
      open = false;
    };
  }, [actions, serverId, testedAt]);

  if (!server) return null;
  const stats = whole?.serverId === serverId ? whole.statistics : undefined;
  const ipInfo = status?.ipInfo ?? null;
  const country = countryOf(ipInfo, i18n.language);
  const verdict = status?.reachability ?? null;
  const nameOf = (id: ServerId) => index.get(id)?.name ?? id;
  const verdictWords = verdict && describeVerdict(verdict, { t, language: i18n.language, server: server.name, nameOf, trustedCheckerId });
  const ms = (value: number | null | undefined) => (value === null || value === undefined ? '—' : format.ms(value));

  return (
    <Modal labelledBy="details-title" onCancel={actions.closeDialog} className="details-dialog">
      <header className="modal-header">
        <h2 id="details-title">
          <bdi>
            <FlaggedName name={server.name} />
          </bdi>
        </h2>
        <p className="muted">
          <span className="protocol">{server.protocol}</span> · <bdi dir="ltr">{hostPort(server.address, server.port)}</bdi> · <bdi>
            <FlaggedName name={subscriptionName} />
          </bdi>
        </p>
        {carried && (
          <p className="muted carried-by" dir="ltr">
            {carried}
          </p>
        )}
      </header>
      {/* What is known on the one side (it wraps), what can be done on the other (it stays whole). */}
      <div className="details-summary">
        <div className="details-facts">
          <PingText status={status} />
          {status?.fromCache && <span className="badge badge-cache">{t('row.fromCache')}</span>}
          {status?.testedAt && <span className="muted">{t('details.checkedAt', { time: format.relative(status.testedAt, now) })}</span>}
          {status?.error && (
            <span className="bad" title={status.error.message}>
              {t('row.failed', { reason: failureText(t, status.error.kind, status.error.message) })}
            </span>
          )}
          <TransferWarning test={status?.transfer ?? null} />
        </div>
        <div className="details-actions">
          <button type="button" className="button" disabled={status?.testing} onClick={() => void actions.testServer(serverId)}>
            {t('details.retest')}
          </button>
          <button type="button" className="button primary" onClick={() => void actions.connect(serverId).then((r) => r.ok && actions.closeDialog())}>
            {t('details.connect')}
          </button>
        </div>
      </div>

      <section aria-labelledby="details-history">
        <h3 id="details-history">{t('details.pingHistory')}</h3>
        <Suspense fallback={<div className="chart-placeholder" />}>
          <PingChart measurements={history ?? (whole?.serverId === serverId ? whole.recent : [])} name={server.name} rtl={rtl} />
        </Suspense>
      </section>

      <div className="details-grid">
        <section aria-labelledby="details-stats">
          <h3 id="details-stats">{t('details.statistics')}</h3>
          <dl>
            <Field label={t('details.count')}>{format.number(stats?.count ?? 0)}</Field>
            <Field label={t('details.failures')}>{format.number(stats?.failures ?? 0)}</Field>
            <Field label={t('details.average')}>{ms(stats?.averageMs)}</Field>
            <Field label={t('details.deviation')}>{ms(stats?.deviationMs)}</Field>
            <Field label={t('details.min')}>{ms(stats?.minMs)}</Field>
            <Field label={t('details.max')}>{ms(stats?.maxMs)}</Field>
            <Field label={t('details.throughput')}>
              <SpeedText status={status} now={now} />{' '}
              <button
                type="button"
                className="button small"
                disabled={measuring}
                onClick={async () => {
                  setMeasuring(true);
                  await actions.measureThroughput(serverId);
                  setMeasuring(false);
                }}
              >
                {measuring ? t('details.measuring') : t('details.measure')}
              </button>
            </Field>
            {/* A speed test that measured is the download speed above; one that failed says so here. */}
            {status?.speedTest && status.speedTest.bytesPerSecond === null && <Field label={t('speedTest.detailsLabel')}>{<SpeedFigure result={status.speedTest} />}</Field>}
            <TransferField test={status?.transfer ?? null} />
            <dt title={t('details.directHint')}>{t('details.direct')}</dt>
            <dd>
              <DirectTests serverId={serverId} />
            </dd>
          </dl>
        </section>
        <section aria-labelledby="details-exit">
          <h3 id="details-exit">{t('details.exit')}</h3>
          {ipInfo ? (
            <dl>
              <Field label={t('details.ip')}>
                <bdi dir="ltr">{ipInfo.ip}</bdi>{' '}
                {ipInfo.fromCache && <span className="badge badge-unconfirmed">{t('row.ipNotConfirmed')}</span>}
              </Field>
              <Field label={t('details.country')}>
                {country ? (
                  <>
                    <Flag code={country.code} name={country.name} /> {country.name}
                  </>
                ) : (
                  ipInfo.country ?? '—'
                )}
              </Field>
              {ipInfo.region && <Field label={t('details.region')}>{ipInfo.region}</Field>}
              {ipInfo.city && <Field label={t('details.city')}>{ipInfo.city}</Field>}
              {ipInfo.asn && (
                <Field label={t('details.asn')}>
                  <bdi dir="ltr">{ipInfo.asn}</bdi>
                </Field>
              )}
              {ipInfo.org && (
                <Field label={t('details.org')}>
                  <bdi>{ipInfo.org}</bdi>
                </Field>
              )}
              <Field label={t('details.source')}>
                <bdi dir="ltr">{ipInfo.source}</bdi> · {format.relative(ipInfo.at, now)}
              </Field>
              {/* In the same list as the exit's rows, so its label and value line up with theirs. */}
              <Ipv6Field ipv6={status?.ipv6 ?? null} now={now} />
            </dl>
          ) : (
            <>
              <p className="muted">{t('row.unknownCountry')}</p>
              <dl>
                <Ipv6Field ipv6={status?.ipv6 ?? null} now={now} />
              </dl>
            </>
          )}
        </section>
      </div>

      {verdict && verdictWords && (
        <section aria-labelledby="details-reach">
          <h3 id="details-reach">{t('details.reachability')}</h3>
          <p className="verdict-line">
            <span className={`verdict verdict-${verdict.verdict}`}>{t(`verdict.${verdict.verdict}`, { defaultValue: verdict.verdict })}</span>{' '}
            <span className="verdict-sentence" title={verdictWords.detail}>
              {verdictWords.sentence}
            </span>
          </p>
          {verdict.vantagePoints.length > 0 && (
            <ul className="vantage-list" aria-label={t('details.seenFrom')}>
              {verdict.vantagePoints.map((point) => (
                <li key={point.serverId}>
                  <bdi>{nameOf(point.serverId)}</bdi>: {point.reached ? t('details.reached') : t('details.notReached')}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}

      <ServerChain serverId={server.id} />

      <ServerAntiDpi serverId={server.id} />

      <footer className="modal-footer">
        <button type="button" className="button" onClick={() => actions.openDialog({ kind: 'share', target: { serverId: server.id }, returnTo: { kind: 'server-details', serverId: server.id } })}>
          {t('desktop.share.open')}
        </button>
        <button type="button" className="button" onClick={actions.closeDialog}>
          {t('common.close')}
        </button>
      </footer>
    </Modal>
  );
}
