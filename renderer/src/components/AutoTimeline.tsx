import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ServerId } from '../../../shared/domain/server';
import type { ListServer } from '../../../shared/ipc/contract';
import { type Formatters, isolate } from '../format/format';
import { pauseReasonText, stayReasonText, switchReasonText, triggerText } from '../format/reasons';
import { useFormat } from '../hooks/useFormat';
import { useNow } from '../hooks/useNow';
import { buildTimeline, type Episode, episodes } from '../store/auto.timeline';
import { GroupPicks } from './GroupPicks';
import { useAppStore } from '../store/context';
import { localUtcOffsetMs, timeTicks } from '../store/ticks';
import { selectServerIndex } from '../store/servers.selectors';
import { directionOf, selectLanguage } from '../store/ui';

const WINDOWS_MS = [10 * 60_000, 30 * 60_000, 2 * 3_600_000] as const;
const EPISODES_SHOWN = 40;
/** The bands' colours (styles.css): none is the green of a return or the red of a switch. */
export const BAND_PALETTE = ['--band-1', '--band-2', '--band-3', '--band-4', '--band-5'];

/** Each server keeps one colour, in the order it first carried traffic. */
function colourOf(order: Map<ServerId, number>, id: ServerId): string {
  if (!order.has(id)) order.set(id, order.size);
  return `var(${BAND_PALETTE[order.get(id)! % BAND_PALETTE.length]})`;
}

function useWidth(fallback: number) {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const element = ref.current;
    if (!element || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(([entry]) => {
      const next = entry?.contentRect.width ?? 0;
      if (next > 0) setWidth(Math.round(next));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return { ref, width };
}

/**
 * The seed's figure from live data: a band showing which server carried the traffic over time,
 * markers for checks, switches and returns, shaded network-loss periods, and under it the
 * decisions with their reasons as a readable list.
 */
export function AutoTimeline() {
  const { t } = useTranslation();
  const format = useFormat();
  const auto = useAppStore((s) => s.auto);
  const sessions = useAppStore((s) => s.sessions);
  const latestEvent = useMemo(
    () => [...auto.timeline.map((entry) => entry.at), ...sessions.map((session) => session.since)].reduce((latest, at) => Math.max(latest, at), 0),
    [auto.timeline, sessions],
  );
  const now = useNow(5000, latestEvent);
  const index = useAppStore(selectServerIndex);
  const autoName = useAppStore((s) => s.subscriptions.find((x) => x.id === s.auto.subscriptionId)?.name ?? null);
  const rtl = useAppStore((s) => directionOf(selectLanguage(s)) === 'rtl');
  const [windowMs, setWindowMs] = useState<number>(WINDOWS_MS[1]);
  const { ref, width } = useWidth(360);
  const nameOf = (id: ServerId | null) => (id ? index.get(id)?.name ?? id : '—');

  // The clock ticks every 5 s, and at once with a new decision or connection (see useNow).
  const model = useMemo(() => buildTimeline(auto.timeline, Math.max(now, latestEvent), windowMs, sessions), [auto.timeline, now, latestEvent, windowMs, sessions]);
  const list = useMemo(() => episodes(auto.timeline), [auto.timeline]);

  const height = 118;
  const band = { top: 46, height: 30 };
  const pad = 8;
  const span = model.end - model.start;
  const x = (at: number) => {
    const fraction = (at - model.start) / span;
    const px = pad + fraction * (width - 2 * pad);
    return rtl ? width - px : px;
  };
  const colours = new Map<ServerId, number>();
  const ticks = timeTicks(model.start, model.end, Math.max(2, Math.floor(width / 90)), localUtcOffsetMs(model.end));

  return (
    <section className="panel timeline-panel" aria-labelledby="timeline-title">
      <header className="panel-header">
        <h2 id="timeline-title">{t('timeline.title')}</h2>
        {autoName && (
          <span className="chip chip-auto">
            <bdi>{autoName}</bdi>
          </span>
        )}
        <span className="spacer" />
        <div className="segmented small" role="group" aria-label={t('timeline.window')}>
          {WINDOWS_MS.map((ms) => (
            <button key={ms} type="button" className={ms === windowMs ? 'segment active' : 'segment'} aria-pressed={ms === windowMs} onClick={() => setWindowMs(ms)}>
              {format.duration(ms)}
            </button>
          ))}
        </div>
      </header>
      {!auto.subscriptionId && <p className="muted">{t('timeline.off')}</p>}
      <div ref={ref} className="timeline-figure" hidden={auto.timeline.length === 0 && !(auto.subscriptionId && model.segments.length > 0)}>
        <svg width={width} height={height} role="img" aria-label={t('timeline.figure', { span: format.duration(windowMs) })}>
          <defs>
            <pattern id="loss-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
              <rect width="6" height="6" fill="var(--loss-bg)" />
              <line x1="0" y1="0" x2="0" y2="6" stroke="var(--poor)" strokeWidth="2" strokeOpacity="0.55" />
            </pattern>
          </defs>
          <rect x={pad} y={band.top} width={width - 2 * pad} height={band.height} rx={4} fill="var(--band-empty)" />
          {model.segments.map((segment) => {
            if (segment.serverId === null) return null;
            const a = x(segment.start);
            const b = x(segment.end);
            const left = Math.min(a, b);
            const w = Math.max(1, Math.abs(b - a));
            const label = nameOf(segment.serverId);
            return (
              <g key={`${segment.serverId}:${segment.start}`}>
                <rect x={left} y={band.top} width={w} height={band.height} fill={colourOf(colours, segment.serverId)}>
                  <title>{`${label}: ${format.time(segment.start)} – ${format.time(segment.end)}`}</title>
                </rect>
                {w > label.length * 6.5 + 10 && (
                  <text x={left + w / 2} y={band.top + band.height / 2 + 4} textAnchor="middle" className="band-label">
                    {label}
                  </text>
                )}
              </g>
            );
          })}
          {model.losses.map((loss) => {
            const a = x(loss.start);
            const b = x(loss.end);
            const w = Math.max(2, Math.abs(b - a));
            return (
              <g key={`loss:${loss.start}`}>
                <rect x={Math.min(a, b)} y={band.top - 4} width={w} height={band.height + 8} fill="url(#loss-hatch)">
                  <title>{`${t('timeline.legendLoss')}: ${format.time(loss.start)} – ${loss.ongoing ? '…' : format.time(loss.end)}`}</title>
                </rect>
                {w > 60 && (
                  <text x={Math.min(a, b) + w / 2} y={band.top + band.height + 16} textAnchor="middle" className="loss-label">
                    {t('timeline.legendLoss')}
                  </text>
                )}
              </g>
            );
          })}
          {model.markers.map((marker, i) => {
            const mx = x(marker.at);
            if (marker.kind === 'check') {
              return <line key={i} x1={mx} x2={mx} y1={band.top - 10} y2={band.top - 2} className="marker-check" />;
            }
            if (marker.kind === 'switch' || marker.kind === 'return') {
              return (
                <g key={i} className={marker.kind === 'return' ? 'marker-return' : 'marker-switch'}>
                  <line x1={mx} x2={mx} y1={band.top - 14} y2={band.top + band.height} />
                  <path d={`M${mx - 5},${band.top - 20} L${mx + 5},${band.top - 20} L${mx},${band.top - 12} Z`} />
                  <title>{`${format.time(marker.at)}: ${nameOf(marker.serverId ?? null)}`}</title>
                </g>
              );
            }
            if (marker.kind === 'network-lost') {
              return <circle key={i} cx={mx} cy={band.top - 8} r={2.5} className="marker-loss" />;
            }
            return <circle key={i} cx={mx} cy={band.top - 8} r={2} className="marker-pause" />;
          })}
          <line x1={pad} x2={width - pad} y1={band.top + band.height + 22} y2={band.top + band.height + 22} className="axis" />
          {ticks.map((tick) => (
            <g key={tick}>
              <line x1={x(tick)} x2={x(tick)} y1={band.top + band.height + 19} y2={band.top + band.height + 25} className="axis" />
              <text x={x(tick)} y={band.top + band.height + 37} textAnchor="middle" className="tick-label">
                {format.clock(tick)}
              </text>
            </g>
          ))}
        </svg>
        <ul className="timeline-legend" aria-hidden="true">
          <li>
            <span className="legend-check" /> {t('timeline.legendCheck')}
          </li>
          <li>
            <span className="legend-switch" /> {t('timeline.legendSwitch')}
          </li>
          <li>
            <span className="legend-return" /> {t('timeline.legendReturn')}
          </li>
          <li>
            <span className="legend-loss" /> {t('timeline.legendLoss')}
          </li>
        </ul>
      </div>
      {auto.networkLostUntil && auto.networkLostUntil > now && <p className="note">{t('timeline.networkLostUntil', { time: format.time(auto.networkLostUntil) })}</p>}
      {auto.returnCandidate && <p className="note">{t('timeline.returnCandidate', { server: isolate(nameOf(auto.returnCandidate)) })}</p>}
      <h3 className="decisions-title">{t('timeline.decisions')}</h3>
      {list.length === 0 ? (
        <p className="muted">{t('timeline.empty')}</p>
      ) : (
        <ol className="decision-list">
          {list.slice(0, EPISODES_SHOWN).map((episode) => (
            <EpisodeItem key={episode.key} episode={episode} index={index} format={format} />
          ))}
          {list.length > EPISODES_SHOWN && <li className="muted">{t('timeline.more', { count: list.length - EPISODES_SHOWN })}</li>}
        </ol>
      )}
      <GroupPicks renderEpisode={(episode) => <EpisodeItem key={episode.key} episode={episode} index={index} format={format} />} />
    </section>
  );
}

function EpisodeItem({ episode, index, format }: { episode: Episode; index: Map<ServerId, ListServer>; format: Formatters }) {
  const { t } = useTranslation();
  const nameOf = (id: ServerId | null) => isolate(id ? index.get(id)?.name ?? id : '—');
  const outcome = episode.outcome;
  let headline: string | null = null;
  let tone = 'neutral';
  if (outcome?.type === 'switch') {
    const names = { from: nameOf(outcome.from), to: nameOf(outcome.to) };
    const action = outcome.from ? t('decision.switch', names) : t('decision.connectTo', names);
    headline = t('decision.because', { what: action, why: switchReasonText(t, outcome, names) });
    tone = outcome.reason === 'return' ? 'return' : 'switch';
  } else if (outcome?.type === 'stay') {
    const reason = stayReasonText(t, outcome, (id) => index.get(id)?.name ?? id);
    const stay = t('decision.stay', { server: nameOf(outcome.id) });
    headline = reason ? t('decision.because', { what: stay, why: reason }) : stay;
  } else if (outcome?.type === 'network-lost') {
    headline = t('decision.networkLost', { next: format.duration(outcome.next_in_ms), attempt: format.number(outcome.attempt) });
    tone = 'loss';
  } else if (outcome?.type === 'rate-limited') {
    headline = t('decision.rateLimited', { time: format.time(outcome.until) });
    tone = 'loss';
  } else if (outcome?.type === 'pause') {
    const reason = pauseReasonText(t, outcome.reason);
    const pause = t('decision.pause', { time: format.time(outcome.until) });
    headline = reason ? t('decision.because', { what: pause, why: reason }) : pause;
  }
  return (
    <li className={`decision tone-${tone}`}>
      <time dateTime={new Date(episode.at).toISOString()}>{format.time(episode.at)}</time>
      <div>
        {episode.check && (
          <div className="decision-check">
            {t('decision.check', {
              trigger: triggerText(t, episode.check.trigger, episode.check.failure, episode.check.transfer && { ...episode.check.transfer, server: nameOf(episode.check.transfer.server) }),
            })}
          </div>
        )}
        {headline && <div className="decision-outcome">{headline}</div>}
        {episode.results.length > 0 && (
          <div className="probe-results-label" aria-hidden="true">
            {t('decision.answers')}
          </div>
        )}
        {episode.results.length > 0 && (
          <ul className="probe-results" aria-label={t('decision.answers')}>
            {episode.results.map((result, i) => (
              <li key={i} className={result.delay === null ? 'silent' : 'answered'}>
                {/* A sentence in the UI's direction; the name inside is already isolated (a <bdi>
                    here took the direction of the name's first letter: "ms 180 :A3 سرور" in English). */}
                <span>
                  {result.delay === null
                    ? t('decision.silent', { server: nameOf(result.id) })
                    : t('decision.answered', { server: nameOf(result.id), delay: format.ms(result.delay) })}
                </span>
                {result.transfer && result.delay !== null && (
                  <span className={result.transfer === 'freezes' ? 'bad' : 'warn'} data-transfer={result.transfer}>
                    {' '}
                    · {t(result.transfer === 'freezes' ? 'transfer.skipped' : 'transfer.marked')}
                  </span>
                )}
                {!result.recorded && <span className="muted"> ({t('decision.notRecorded')})</span>}
              </li>
            ))}
          </ul>
        )}
      </div>
    </li>
  );
}
