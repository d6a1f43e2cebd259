import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DirectMethod, DirectTestOutcome } from '../../../shared/domain/measurement';
import type { ServerId } from '../../../shared/domain/server';
import { failureText } from '../format/reasons';
import { useFormat } from '../hooks/useFormat';
import { useAppStore } from '../store/context';

const METHODS: DirectMethod[] = ['tcp', 'icmp'];

/**
 * TCP and ICMP tests on request, straight to the server's address: an address that answers while
 * the URL test fails says the proxy, not the address, is what does not work from here.
 */
export function DirectTests({ serverId }: { serverId: ServerId }) {
  const { t } = useTranslation();
  const format = useFormat();
  const measureDirect = useAppStore((s) => s.measureDirect);
  const [running, setRunning] = useState<DirectMethod | null>(null);
  const [outcomes, setOutcomes] = useState<Partial<Record<DirectMethod, DirectTestOutcome>>>({});

  const run = async (method: DirectMethod) => {
    setRunning(method);
    const result = await measureDirect(serverId, method);
    setRunning(null);
    if (result.ok) setOutcomes((previous) => ({ ...previous, [method]: result.value }));
  };

  const words = (outcome: DirectTestOutcome): string => {
    const method = t(`details.${outcome.method}`);
    if (!outcome.available) return t('details.directUnavailable', { method, reason: outcome.reason });
    const { delayMs, error } = outcome.measurement;
    return delayMs === null ? t('details.directNoAnswer', { method, why: failureText(t, error ?? 'timeout') }) : format.ms(delayMs);
  };

  return (
    <span className="direct-tests">
      {METHODS.map((method) => {
        const outcome = outcomes[method];
        return (
          <span key={method} className="direct-test" data-direct={method}>
            <button type="button" className="button small" disabled={running !== null} onClick={() => void run(method)}>
              {running === method ? t('details.measuring') : t(`details.${method}`)}
            </button>{' '}
            {outcome && (
              <span role="status" className={outcome.available && outcome.measurement.delayMs !== null ? 'good' : 'muted'}>
                {/* The button beside it names the method; a screen reader hears the status alone, so it keeps the name. */}
                {outcome.available && outcome.measurement.delayMs !== null && <span className="visually-hidden">{t(`details.${outcome.method}`)}: </span>}
                {words(outcome)}
              </span>
            )}{' '}
          </span>
        );
      })}
    </span>
  );
}
