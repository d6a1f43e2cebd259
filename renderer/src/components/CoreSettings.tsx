/**
 * The Cores page of Settings: which core runs the connection (Automatic = Xray when present, else
 * v2ray; one of them by name; or a program by its path), stored in the settings' `corePath`, and
 * every core on the machine as `cli cores` lists it — version, path, where it was found, its role
 * and how many of the user's servers it carries.
 */
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { CoreEntry, CoreList } from '../../../shared/domain/cores';
import { useAppStore } from '../store/context';
import { EngineDetails } from './EngineDetails';

export const CORE_CHOICES = ['auto', 'xray', 'v2ray', 'path'] as const;
export type CoreChoice = (typeof CORE_CHOICES)[number];

export interface CoreDraft {
  coreChoice: CoreChoice;
  /** The program's path, used when the choice is `path`. */
  corePath: string;
}

/** The setting as the form shows it: a name is a choice of its own, anything else a path. */
export function coreDraftOf(corePath: string | null): CoreDraft {
  if (corePath === null) return { coreChoice: 'auto', corePath: '' };
  if (corePath === 'xray' || corePath === 'v2ray') return { coreChoice: corePath, corePath: '' };
  return { coreChoice: 'path', corePath };
}

/** The setting the form asks for; an empty path leaves the choice to the app. */
export function corePathOf(draft: CoreDraft): string | null {
  if (draft.coreChoice === 'auto') return null;
  if (draft.coreChoice !== 'path') return draft.coreChoice;
  return draft.corePath.trim() === '' ? null : draft.corePath.trim();
}

/** "Xray", "v2ray", "sing-box": each core as its makers write it. */
export function coreDisplayName(name: string): string {
  return name === 'xray' ? 'Xray' : name;
}

/** Isolated (FSI … PDI) so "v2ray 4.34.0" or a path keeps its order inside a right-to-left sentence. */
const isolate = (text: string) => `\u2068${text}\u2069`;

export function CoreSettings({ draft, onChange, error }: { draft: CoreDraft; onChange(change: Partial<CoreDraft>): void; error?: string }) {
  const { t } = useTranslation();
  const coreList = useAppStore((s) => s.coreList);
  const loadCores = useAppStore((s) => s.loadCores);
  useEffect(() => {
    void loadCores();
  }, [loadCores]);
  const list = coreList.state === 'ready' ? coreList.list : null;
  const found = (name: string) => list?.cores.find((c) => c.name === name && c.version !== null);
  const optionLabel = (name: 'xray' | 'v2ray') => {
    const core = found(name);
    return core ? t('cores.optionFound', { core: isolate(`${coreDisplayName(name)} ${core.version}`), where: t(`cores.source.${core.source === 'setting' ? 'chosen' : core.source}`) }) : t('cores.optionMissing', { core: coreDisplayName(name) });
  };
  return (
    <div className="core-settings">
      <fieldset>
        <legend>{t('cores.choiceTitle')}</legend>
        <label className="field">
          <span>{t('cores.choice')}</span>
          <select value={draft.coreChoice} onChange={(e) => onChange({ coreChoice: e.target.value as CoreChoice })}>
            <option value="auto">{t('cores.automatic')}</option>
            <option value="xray">{optionLabel('xray')}</option>
            <option value="v2ray">{optionLabel('v2ray')}</option>
            <option value="path">{t('cores.anotherProgram')}</option>
          </select>
          <span className="hint">{t('cores.choiceHint')}</span>
        </label>
        {draft.coreChoice === 'path' && (
          <label className="field">
            <span>{t('settings.corePath')}</span>
            <input type="text" dir="ltr" spellCheck={false} value={draft.corePath} aria-invalid={error !== undefined} onChange={(e) => onChange({ corePath: e.target.value })} />
            <span className="hint">{t('settings.corePathHint')}</span>
            {error && (
              <span className="field-error" id="err-corePath">
                {error}
              </span>
            )}
          </label>
        )}
      </fieldset>
      <section className="core-list" aria-labelledby="core-list-title">
        <h3 id="core-list-title">{t('cores.listTitle')}</h3>
        {coreList.state === 'ready' ? (
          <CoreListView list={coreList.list} />
        ) : coreList.state === 'failed' ? (
          <p role="alert">{t('cores.loadFailed', { error: coreList.error })}</p>
        ) : (
          <p className="hint" role="status">
            {t('cores.loading')}
          </p>
        )}
      </section>
    </div>
  );
}

/** The list itself: the main core first, then the carriers, then those available. */
export function CoreListView({ list }: { list: CoreList }) {
  const { t } = useTranslation();
  return (
    <>
      {list.problem && (
        <div className="capability-note" role="note">
          <p>{t('cores.noMain')}</p>
          <EngineDetails className="core-problem" text={list.problem} />
        </div>
      )}
      {list.cores.length === 0 ? (
        <p className="hint">{t('cores.none')}</p>
      ) : (
        <ul className="core-entries">
          {list.cores.map((core) => (
            <CoreItem key={core.path} core={core} total={list.serverCount} />
          ))}
        </ul>
      )}
      {list.serverCount > 0 && list.uncarried > 0 && <p className="capability-note">{t('cores.uncarried', { uncarried: list.uncarried, total: list.serverCount })}</p>}
    </>
  );
}

function CoreItem({ core, total }: { core: CoreEntry; total: number }) {
  const { t } = useTranslation();
  const title = core.version ? `${coreDisplayName(core.name)} ${core.version}` : coreDisplayName(core.name);
  const role = core.problem ? 'unusable' : core.role;
  return (
    <li className={`core-entry core-${role}`} data-core={core.name} data-role={role}>
      <div className="core-heading">
        <strong>
          <bdi>{title}</bdi>
        </strong>
        <span className="core-role">{t(`cores.role.${role}`)}</span>
      </div>
      <p className="core-where">
        <bdi dir="ltr" className="core-path">
          {core.path}
        </bdi>{' '}
        <span>({t(`cores.source.${core.source === 'setting' ? 'chosen' : core.source}`)})</span>
      </p>
      {core.problem ? (
        <EngineDetails className="core-problem" text={core.problem} />
      ) : (
        <>
          {core.role !== 'available' && <p>{total > 0 ? t('cores.carries', { carried: core.carries, total }) : t('cores.noServers')}</p>}
          {core.abilities && core.abilities.protocols.length > 0 && (
            <dl className="core-abilities">
              <dt>{t('cores.protocols')}</dt>
              <dd dir="ltr">{core.abilities.protocols.join(', ')}</dd>
              <dt>{t('cores.transports')}</dt>
              <dd dir="ltr">{core.abilities.transports.join(', ')}</dd>
              <dt>{t('cores.securities')}</dt>
              <dd dir="ltr">{core.abilities.securities.join(', ')}</dd>
            </dl>
          )}
          {core.abilities && (core.abilities.confirmed.length > 0 || core.abilities.refuted.length > 0) && (
            <p className="hint">{t('cores.checked', { confirmed: core.abilities.confirmed.length, refuted: core.abilities.refuted.length })}</p>
          )}
        </>
      )}
    </li>
  );
}
