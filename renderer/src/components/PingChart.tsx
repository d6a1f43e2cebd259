import { CartesianGrid, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import { useTranslation } from 'react-i18next';
import type { Measurement } from '../../../shared/domain/measurement';
import { failureText } from '../format/reasons';
import { useFormat } from '../hooks/useFormat';
import { chartData, type ChartPoint, timeAxis } from '../store/history';
import { localUtcOffsetMs } from '../store/ticks';
import { PING_FAIR_BELOW_MS, PING_GOOD_BELOW_MS } from '../store/servers.selectors';

interface TooltipPayload {
  payload?: ChartPoint;
}

/**
 * A server's ping over time: the line breaks where a probe failed and a red mark sits at the top
 * for each failure, so a flapping server looks like one. Time runs with the reading direction.
 */
export function PingChart({ measurements, name, rtl }: { measurements: readonly Measurement[]; name: string; rtl: boolean }) {
  const { t } = useTranslation();
  const format = useFormat();
  const { points, ceiling } = chartData(measurements);
  if (points.length === 0) return <p className="muted">{t('details.noHistory')}</p>;
  const axis = timeAxis(points, 8, localUtcOffsetMs(points[points.length - 1]!.at));
  const tickLabel = axis.label === 'seconds' ? format.time : axis.label === 'date-time' ? format.dateTime : format.clock;
  return (
    <figure className="ping-chart" aria-label={t('details.chartLabel', { name })}>
      <LineChart responsive data={points} style={{ inlineSize: '100%', blockSize: 220 }} margin={{ top: 12, right: 12, left: 12, bottom: 4 }}>
        <CartesianGrid stroke="var(--grid)" strokeDasharray="3 3" />
        <XAxis
          dataKey="at"
          type="number"
          scale="time"
          domain={axis.domain}
          ticks={axis.ticks}
          interval={0}
          reversed={rtl}
          tickFormatter={(value: number) => tickLabel(value)}
          stroke="var(--text-muted)"
          fontSize={11}
        />
        <YAxis
          domain={[0, ceiling]}
          orientation={rtl ? 'right' : 'left'}
          tickFormatter={(value: number) => format.number(value)}
          stroke="var(--text-muted)"
          fontSize={11}
          width={48}
          label={{ value: t('details.axisMs'), angle: -90, position: rtl ? 'insideRight' : 'insideLeft', fill: 'var(--text-muted)', fontSize: 11 }}
        />
        <ReferenceLine y={PING_GOOD_BELOW_MS} stroke="var(--good)" strokeDasharray="4 4" strokeOpacity={0.6} />
        <ReferenceLine y={PING_FAIR_BELOW_MS} stroke="var(--fair)" strokeDasharray="4 4" strokeOpacity={0.6} />
        <Tooltip
          content={({ active, payload }) => {
            const point = (payload as unknown as TooltipPayload[] | undefined)?.[0]?.payload;
            if (!active || !point) return null;
            return (
              <div className="chart-tooltip">
                <div>{format.dateTime(point.at)}</div>
                <strong>{point.delay !== null ? format.ms(point.delay) : `${t('details.failedMark')}${point.error ? ` (${failureText(t, point.error)})` : ''}`}</strong>
              </div>
            );
          }}
        />
        <Line
          type="monotone"
          dataKey="delay"
          name={t('details.answered')}
          stroke="var(--accent)"
          strokeWidth={2}
          dot={{ r: 2.5, fill: 'var(--accent)' }}
          connectNulls={false}
          isAnimationActive={false}
        />
        <Line
          dataKey="failed"
          name={t('details.failedMark')}
          stroke="none"
          dot={{ r: 4, fill: 'var(--poor)', stroke: 'var(--surface)', strokeWidth: 1 }}
          activeDot={{ r: 5, fill: 'var(--poor)' }}
          isAnimationActive={false}
        />
      </LineChart>
      {/* What the dashed lines mean: the thresholds the rows colour pings by. */}
      <figcaption className="chart-legend">
        <span className="legend-item">
          <span className="legend-dash good" aria-hidden="true" />
          {t('pingChart.goodBelow', { ms: format.ms(PING_GOOD_BELOW_MS) })}
        </span>
        <span className="legend-item">
          <span className="legend-dash fair" aria-hidden="true" />
          {t('pingChart.fairBelow', { ms: format.ms(PING_FAIR_BELOW_MS) })}
        </span>
      </figcaption>
    </figure>
  );
}
