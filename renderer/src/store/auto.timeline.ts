/**
 * The Auto timeline drawn from live data (the seed's figure): a band of who carried the traffic,
 * markers for checks, switches and returns, shaded network-loss periods, and the decisions grouped
 * into readable episodes. Pure functions of the host's timeline, the connection and `now`.
 */
import type { AutoDecision, TimelineEntry } from '../../../shared/domain/auto';
import type { ServerId } from '../../../shared/domain/server';

export interface TimelineSegment {
  serverId: ServerId | null;
  start: number;
  end: number;
}

export type MarkerKind = 'check' | 'switch' | 'return' | 'network-lost' | 'rate-limited' | 'pause';

export interface TimelineMarker {
  kind: MarkerKind;
  at: number;
  /** The server switched to, for switches and returns. */
  serverId?: ServerId;
}

export interface LossPeriod {
  start: number;
  end: number;
  ongoing: boolean;
}

export interface TimelineModel {
  start: number;
  end: number;
  segments: TimelineSegment[];
  markers: TimelineMarker[];
  losses: LossPeriod[];
}

type Of<T extends AutoDecision['type']> = Extract<TimelineEntry, { type: T }>;

/** Who carries the traffic once this entry has happened. */
function carryingAfter(entry: TimelineEntry): ServerId | null {
  return entry.type === 'switch' ? entry.to : entry.carrying;
}

function byTime(entries: readonly TimelineEntry[]): TimelineEntry[] {
  return entries
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => a.entry.at - b.entry.at || a.index - b.index)
    .map(({ entry }) => entry);
}

/**
 * Network-loss periods: from the check that found everyone silent (neighbours too) until the first
 * answer or switch after it; still open when nothing has answered since.
 */
export function lossPeriods(entries: readonly TimelineEntry[], now: number): LossPeriod[] {
  const periods: LossPeriod[] = [];
  let lastCheckAt: number | null = null;
  let open: number | null = null;
  for (const entry of byTime(entries)) {
    if (entry.type === 'check') lastCheckAt = entry.at;
    if (entry.type === 'network-lost') {
      if (open === null) open = lastCheckAt ?? entry.at;
    } else if (open !== null && ((entry.type === 'probe-result' && entry.delay !== null) || entry.type === 'switch')) {
      periods.push({ start: open, end: entry.at, ongoing: false });
      open = null;
    }
  }
  if (open !== null) periods.push({ start: open, end: Math.max(open, now), ongoing: true });
  return periods;
}

/** A stretch of time the tunnel was up through a server (`until` null: up to now). */
export interface CarrierSpan {
  serverId: ServerId;
  since: number;
  until: number | null;
}

/** `segments` with [from, to) carried by `serverId`, whatever they said there before. */
function paint(segments: TimelineSegment[], from: number, to: number, serverId: ServerId): TimelineSegment[] {
  const out: TimelineSegment[] = [];
  for (const segment of segments) {
    if (segment.end <= from || segment.start >= to) out.push(segment);
    else {
      if (segment.start < from) out.push({ ...segment, end: from });
      if (segment.end > to) out.push({ ...segment, start: to });
    }
  }
  out.push({ serverId, start: from, end: to });
  out.sort((a, b) => a.start - b.start);
  const merged: TimelineSegment[] = [];
  for (const segment of out) {
    const last = merged[merged.length - 1];
    if (last && last.serverId === segment.serverId && last.end === segment.start) last.end = segment.end;
    else merged.push({ ...segment });
  }
  return merged;
}

/**
 * The band, the markers and the loss periods inside the window ending at `now`. The band comes
 * from the decisions (who carried the traffic after each) and, where the tunnel was up, from the
 * connection itself (`carriers`, see ConnectionSession): Auto turned on over a working connection
 * makes no decision until its first check, yet the traffic went through that server all along,
 * and the figure says so from the first second.
 */
export function buildTimeline(entries: readonly TimelineEntry[], now: number, windowMs: number, carriers: readonly CarrierSpan[] = []): TimelineModel {
  const end = now;
  const start = now - windowMs;
  const sorted = byTime(entries);
  const segments: TimelineSegment[] = [];
  let carrying: ServerId | null | undefined; // undefined: nothing known yet
  let since = start;
  const close = (at: number) => {
    if (carrying !== undefined && at > since) {
      const last = segments[segments.length - 1];
      if (last && last.serverId === carrying && last.end === since) last.end = at;
      else segments.push({ serverId: carrying, start: since, end: at });
    }
  };
  for (const entry of sorted) {
    if (entry.at > end) break;
    const next = carryingAfter(entry);
    if (entry.at <= start) {
      carrying = next;
      continue;
    }
    if (next !== carrying) {
      close(entry.at);
      carrying = next;
      since = entry.at;
    }
  }
  close(end);
  // Where the tunnel was up, it says who carried the traffic.
  let band = segments;
  for (const span of [...carriers].sort((a, b) => a.since - b.since)) {
    const from = Math.max(start, span.since);
    const to = Math.min(end, span.until ?? end);
    if (to > from) band = paint(band, from, to, span.serverId);
  }

  const markers: TimelineMarker[] = [];
  for (const entry of sorted) {
    if (entry.at < start || entry.at > end) continue;
    if (entry.type === 'check') markers.push({ kind: 'check', at: entry.at });
    else if (entry.type === 'switch') markers.push({ kind: entry.reason === 'return' ? 'return' : 'switch', at: entry.at, serverId: entry.to });
    else if (entry.type === 'network-lost' || entry.type === 'rate-limited' || entry.type === 'pause') markers.push({ kind: entry.type, at: entry.at });
  }

  const losses = lossPeriods(sorted, now)
    .filter((p) => p.end >= start && p.start <= end)
    .map((p) => ({ ...p, start: Math.max(p.start, start), end: Math.min(p.end, end) }));

  return { start, end, segments: band, markers, losses };
}

/** One check and what came of it, or a decision that stands alone (a switch on "Auto on"). */
export interface Episode {
  key: string;
  at: number;
  check: Of<'check'> | null;
  results: Of<'probe-result'>[];
  outcome: Of<'stay'> | Of<'switch'> | Of<'network-lost'> | Of<'rate-limited'> | Of<'pause'> | null;
  /** Network-loss retries folded into this episode (the back-off's 15 s, 30 s, 1 min… attempts). */
  retries: number;
}

/**
 * The decisions as episodes, newest first: what the list under the figure reads out. Every probe
 * answer sits under the decision it was asked for: answers to probes sent ahead of a check (a
 * `prepare`) join the check that follows, and an answer that lands after its check decided (the
 * silent server's timeout, usually) joins that check rather than stand alone without a heading.
 */
export function episodes(entries: readonly TimelineEntry[]): Episode[] {
  const out: Episode[] = [];
  let current: Episode | null = null;
  /** Answers to probes sent ahead of a check that has not started (null: none being prepared). */
  let prepared: Of<'probe-result'>[] | null = null;
  const begin = (entry: TimelineEntry, check: Of<'check'> | null): Episode => {
    const episode: Episode = { key: `${entry.at}:${out.length}`, at: entry.at, check, results: [], outcome: null, retries: 0 };
    out.push(episode);
    return episode;
  };
  const lateAnswerOf = (episode: Episode | null, entry: Of<'probe-result'>): boolean =>
    episode?.check !== null && episode?.check !== undefined && episode.check.probe.includes(entry.id) && !episode.results.some((r) => r.id === entry.id);
  for (const entry of byTime(entries)) {
    switch (entry.type) {
      case 'check':
        current = begin(entry, entry);
        current.results.push(...(prepared ?? []));
        prepared = null;
        break;
      case 'probe-result':
        if (current && !current.outcome) current.results.push(entry);
        else if (prepared) prepared.push(entry);
        else if (lateAnswerOf(current, entry)) current!.results.push(entry);
        else {
          current = begin(entry, null);
          current.results.push(entry);
        }
        break;
      case 'prepare':
        // Probes sent ahead of a check that may follow: their answers wait for it (the check,
        // when it comes, opens its own episode; a stall that ends first leaves them in the log).
        prepared = [];
        break;
      case 'pause':
        prepared = null;
        begin(entry, null).outcome = entry;
        break;
      case 'settings':
        // A settings change is in the log, not an episode of the connection.
        break;
      case 'network-lost': {
        prepared = null;
        // A retry that found the network still gone says nothing new: it updates the open episode.
        const last = out[out.length - 1];
        if (current?.outcome && last === current && last.outcome?.type === 'network-lost') {
          last.outcome = entry;
          last.retries += 1;
          break;
        }
        if (!current || current.outcome) current = begin(entry, null);
        current.outcome = entry;
        break;
      }
      default:
        prepared = null;
        if (!current || current.outcome) current = begin(entry, null);
        current.outcome = entry;
        break;
    }
  }
  return out.reverse();
}
