/**
 * The anti-DPI inputs (TLS ClientHello fragment and UDP noise), shared by Settings and a server's
 * details, and the plain sentence on what the running core can do with them.
 */
import { useTranslation } from 'react-i18next';
import type { NoiseSettings } from '../../../shared/settings';
import { useAppStore } from '../store/context';
import { type AntiDpiErrors, antiDpiErrorText, type AntiDpiValues } from './anti-dpi-form';

const NOISE_TYPES: NoiseSettings['type'][] = ['rand', 'str', 'base64'];

function TextField({ id, label, hint, value, problem, onChange }: { id: string; label: string; hint?: string; value: string; problem: string | undefined; onChange(value: string): void }) {
  return (
    <label className="field">
      <span>{label}</span>
      <input
        type="text"
        dir="ltr"
        spellCheck={false}
        autoComplete="off"
        value={value}
        aria-invalid={problem !== undefined}
        aria-describedby={problem ? `${id}-error` : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {hint && <span className="hint">{hint}</span>}
      {problem && (
        <span className="field-error" id={`${id}-error`}>
          {problem}
        </span>
      )}
    </label>
  );
}

export function AntiDpiFields({ idPrefix, values, errors, onChange }: { idPrefix: string; values: AntiDpiValues; errors: AntiDpiErrors; onChange(values: AntiDpiValues): void }) {
  const { t } = useTranslation();
  const fragment = values.fragment;
  const noise = values.noise;
  const setFragment = (change: Partial<AntiDpiValues['fragment']>) => onChange({ ...values, fragment: { ...fragment, ...change } });
  const setNoise = (change: Partial<AntiDpiValues['noise']>) => onChange({ ...values, noise: { ...noise, ...change } });
  const problem = (field: string) => antiDpiErrorText(t, errors[field]);
  return (
    <>
      <fieldset>
        <legend>{t('antiDpi.fragment')}</legend>
        <label className="check-field">
          <input type="checkbox" checked={fragment.enabled} onChange={(e) => setFragment({ enabled: e.target.checked })} />
          <span>{t('antiDpi.fragmentOn')}</span>
        </label>
        <p className="hint">{t('antiDpi.fragmentHint')}</p>
        <div className="field-row">
          <TextField id={`${idPrefix}-packets`} label={t('antiDpi.packets')} hint={t('antiDpi.packetsHint')} value={fragment.packets} problem={problem('fragment.packets')} onChange={(packets) => setFragment({ packets })} />
          <TextField id={`${idPrefix}-length`} label={t('antiDpi.length')} hint={t('antiDpi.rangeHint')} value={fragment.length} problem={problem('fragment.length')} onChange={(length) => setFragment({ length })} />
          <TextField id={`${idPrefix}-interval`} label={t('antiDpi.interval')} hint={t('antiDpi.rangeHint')} value={fragment.interval} problem={problem('fragment.interval')} onChange={(interval) => setFragment({ interval })} />
        </div>
      </fieldset>
      <fieldset>
        <legend>{t('antiDpi.noise')}</legend>
        <label className="check-field">
          <input type="checkbox" checked={noise.enabled} onChange={(e) => setNoise({ enabled: e.target.checked })} />
          <span>{t('antiDpi.noiseOn')}</span>
        </label>
        <p className="hint">{t('antiDpi.noiseHint')}</p>
        <div className="field-row">
          <label className="field">
            <span>{t('antiDpi.noiseType')}</span>
            <select value={noise.type} onChange={(e) => setNoise({ type: e.target.value as NoiseSettings['type'] })}>
              {NOISE_TYPES.map((type) => (
                <option key={type} value={type}>
                  {t(`antiDpi.noiseTypeName.${type}`)}
                </option>
              ))}
            </select>
          </label>
          <TextField id={`${idPrefix}-noise-packet`} label={t(`antiDpi.noisePacket.${noise.type}`)} value={noise.packet} problem={problem('noise.packet')} onChange={(packet) => setNoise({ packet })} />
          <TextField id={`${idPrefix}-delay`} label={t('antiDpi.delay')} hint={t('antiDpi.rangeHint')} value={noise.delay} problem={problem('noise.delay')} onChange={(delay) => setNoise({ delay })} />
        </div>
      </fieldset>
    </>
  );
}

/**
 * Whether the core in use can write these options, said plainly: the settings are kept either
 * way, and take effect with a core that has them.
 */
export function AntiDpiAvailability() {
  const { t } = useTranslation();
  const core = useAppStore((s) => s.core);
  if (!core) {
    return (
      <p className="capability-note" role="note" data-anti-dpi="no-core">
        {t('antiDpi.noCore')}
      </p>
    );
  }
  // Isolated (FSI … PDI) so "v2ray 4.34.0" keeps its order inside a right-to-left sentence.
  const name = `\u2068${core.family === 'xray' ? 'Xray' : core.family} ${core.version}\u2069`;
  const { fragment, noise } = core.antiDpi;
  const state = fragment && noise ? 'both' : fragment ? 'noNoise' : noise ? 'noFragment' : 'neither';
  return (
    <p className={state === 'both' ? 'hint' : 'capability-note'} role="note" data-anti-dpi={state}>
      {t(`antiDpi.core.${state}`, { core: name })}
    </p>
  );
}
