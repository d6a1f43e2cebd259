import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CONNECTION_MODES, LANGUAGES, type Settings, type SettingsPatch } from '../../../shared/settings';
import { LANGUAGE_NAMES } from '../i18n/languages';
import { settingsRefusalText, validationTexts } from '../i18n/validation';
import { useAppStore } from '../store/context';
import { matchLanguage } from '../store/ui';
import { Modal } from './Modal';
import { type StartupDraft, StartupFields } from './StartupFields';
import { type RoutingDraft, routingDraftOf, routingPatchFromDraft, RoutingSettings } from './RoutingSettings';
import { type AntiDpiErrors, type AntiDpiValues, checkAntiDpiValues, globalAntiDpiChange, globalValuesOf } from './anti-dpi-form';
import { AntiDpiSettings } from './AntiDpiSettings';
import { FormError, FormFooter } from './FormParts';
import { type CoreDraft, coreDraftOf, corePathOf, CoreSettings } from './CoreSettings';
import { type SharingDraft, SharingSettings } from './SharingSettings';
import { type PerAppDraft, PerAppSettings } from './PerAppSettings';
import { capBytesOf, type TestingDraft, testingDraftOf, TestingSettings } from './TestingSettings';

/** Each page short enough for a small screen; Start-up and Connection are pages of their own. */
const PAGES = ['general', 'connection', 'startup', 'routing', 'antiDpi', 'testing', 'apps', 'sharing', 'cores'] as const;
type Page = (typeof PAGES)[number];
const PAGE_TITLES: Record<Page, string> = {
  general: 'routing.general',
  connection: 'settings.connection',
  startup: 'desktop.startup.section',
  routing: 'routing.page',
  antiDpi: 'antiDpi.page',
  testing: 'testing.page',
  apps: 'perApp.page',
  sharing: 'sharing.page',
  cores: 'cores.page',
};

/** The form's own view of the settings: what the inputs hold, as text. */
interface Draft extends StartupDraft, CoreDraft, TestingDraft {
  language: Settings['language'];
  theme: Settings['theme'];
  stallThresholdS: string;
  testUrls: string;
  ipInfoUrl: string;
  workers: string;
  intervalMin: string;
  idleTimeoutMin: string;
  mode: Settings['mode'];
  killSwitch: boolean;
  killSwitchAllowLan: boolean;
  verifyIpv6: boolean;
  trustedCheckerId: string;
  logLevel: Settings['logLevel'];
}

const trim = (value: number) => String(Math.round(value * 1000) / 1000);

function draftOf(settings: Settings): Draft {
  return {
    language: settings.language,
    theme: settings.theme,
    ...coreDraftOf(settings.corePath),
    ...testingDraftOf(settings.monitor.testBudgetBytesPerDay),
    stallThresholdS: trim(settings.stallThresholdMs / 1000),
    testUrls: settings.monitor.urls.join('\n'),
    ipInfoUrl: settings.monitor.ipInfoUrl,
    workers: String(settings.monitor.workers),
    intervalMin: trim(settings.monitor.intervalMs / 60_000),
    idleTimeoutMin: trim(settings.monitor.idleTimeoutMs / 60_000),
    mode: settings.mode,
    killSwitch: settings.killSwitch,
    killSwitchAllowLan: settings.killSwitchAllowLan,
    verifyIpv6: settings.monitor.verifyIpv6,
    trustedCheckerId: settings.trustedCheckerId ?? '',
    logLevel: settings.logLevel,
    startAtLogin: settings.startAtLogin,
    connectOnStart: settings.connectOnStart,
  };
}

/** Number fields that did not parse, by the settings path they feed. */
type NumberErrors = Record<string, true>;

/**
 * Only what changed goes to the host. Numbers are converted to the units the settings use (ms);
 * an entry that is not a number is reported here instead of being sent.
 */
export function patchFromDraft(draft: Draft, settings: Settings): { patch: SettingsPatch; numberErrors: NumberErrors } {
  const patch: SettingsPatch = {};
  const monitor: NonNullable<SettingsPatch['monitor']> = {};
  const numberErrors: NumberErrors = {};
  const num = (text: string, scale: number, path: string): number | undefined => {
    const value = Number(text.trim().replace(',', '.'));
    if (text.trim() === '' || !Number.isFinite(value)) {
      numberErrors[path] = true;
      return undefined;
    }
    return Math.round(value * scale);
  };
  if (draft.language !== settings.language) patch.language = draft.language;
  if (draft.theme !== settings.theme) patch.theme = draft.theme;
  const corePath = corePathOf(draft);
  if (corePath !== settings.corePath) patch.corePath = corePath;
  const stall = num(draft.stallThresholdS, 1000, 'stallThresholdMs');
  if (stall !== undefined && stall !== settings.stallThresholdMs) patch.stallThresholdMs = stall;
  const urls = draft.testUrls.split('\n').map((line) => line.trim()).filter(Boolean);
  if (urls.join('\n') !== settings.monitor.urls.join('\n')) monitor.urls = urls;
  if (draft.ipInfoUrl.trim() !== settings.monitor.ipInfoUrl) monitor.ipInfoUrl = draft.ipInfoUrl.trim();
  const workers = num(draft.workers, 1, 'monitor.workers');
  if (workers !== undefined && workers !== settings.monitor.workers) monitor.workers = workers;
  const interval = num(draft.intervalMin, 60_000, 'monitor.intervalMs');
  if (interval !== undefined && interval !== settings.monitor.intervalMs) monitor.intervalMs = interval;
  const idle = num(draft.idleTimeoutMin, 60_000, 'monitor.idleTimeoutMs');
  if (idle !== undefined && idle !== settings.monitor.idleTimeoutMs) monitor.idleTimeoutMs = idle;
  if (draft.verifyIpv6 !== settings.monitor.verifyIpv6) monitor.verifyIpv6 = draft.verifyIpv6;
  const cap = capBytesOf(draft);
  if (cap === null) numberErrors['monitor.testBudgetBytesPerDay'] = true;
  else if (cap !== settings.monitor.testBudgetBytesPerDay) monitor.testBudgetBytesPerDay = cap;
  if (draft.mode !== settings.mode) patch.mode = draft.mode;
  if (draft.killSwitch !== settings.killSwitch) patch.killSwitch = draft.killSwitch;
  if (draft.killSwitchAllowLan !== settings.killSwitchAllowLan) patch.killSwitchAllowLan = draft.killSwitchAllowLan;
  const checker = draft.trustedCheckerId === '' ? null : draft.trustedCheckerId;
  if (checker !== settings.trustedCheckerId) patch.trustedCheckerId = checker;
  if (draft.logLevel !== settings.logLevel) patch.logLevel = draft.logLevel;
  if (draft.startAtLogin !== settings.startAtLogin) patch.startAtLogin = draft.startAtLogin;
  if (draft.connectOnStart !== settings.connectOnStart) patch.connectOnStart = draft.connectOnStart;
  if (Object.keys(monitor).length > 0) patch.monitor = monitor;
  return { patch, numberErrors };
}

function FieldError({ path, errors }: { path: string; errors: Record<string, string> }) {
  const message = Object.entries(errors).find(([key]) => key === path || key.startsWith(`${path}.`))?.[1];
  if (!message) return null;
  return (
    <span className="field-error" id={`err-${path}`}>
      {message}
    </span>
  );
}

function Field({ label, hint, path, errors, children }: { label: string; hint?: string; path: string; errors: Record<string, string>; children: ReactNode }) {
  return (
    <label className="field">
      <span>{label}</span>
      {children}
      {hint && <span className="hint">{hint}</span>}
      <FieldError path={path} errors={errors} />
    </label>
  );
}

export function SettingsDialog() {
  const { t } = useTranslation();
  const settings = useAppStore((s) => s.settings);
  const subscriptions = useAppStore((s) => s.subscriptions);
  const systemLanguage = useAppStore((s) => s.systemLanguage);
  const saveSettings = useAppStore((s) => s.saveSettings);
  const closeDialog = useAppStore((s) => s.closeDialog);
  const pushNotice = useAppStore((s) => s.pushNotice);
  // The mode chip opens Settings at the mode field.
  const focusMode = useAppStore((s) => s.dialog.kind === 'settings' && s.dialog.focus === 'mode');
  const modeField = useRef<HTMLSelectElement>(null);
  const [draft, setDraft] = useState<Draft>(() => draftOf(settings));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const first = useRef<HTMLSelectElement>(null);
  const [page, setPage] = useState<Page>(focusMode ? 'connection' : 'general');
  useEffect(() => {
    if (focusMode) modeField.current?.scrollIntoView?.({ block: 'nearest' });
    // Once, as the dialog opens.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const [routingDraft, setRoutingDraft] = useState<RoutingDraft>(() => routingDraftOf(settings));
  const [antiDpiValues, setAntiDpiValues] = useState<AntiDpiValues>(() => globalValuesOf(settings.antiDpi));
  const [antiDpiErrors, setAntiDpiErrors] = useState<AntiDpiErrors>({});
  const [sharingDraft, setSharingDraft] = useState<SharingDraft>(() => settings.sharing);
  const [perAppDraft, setPerAppDraft] = useState<PerAppDraft>(() => settings.perApp);

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const invalid = (path: string) => Object.keys(errors).some((key) => key === path || key.startsWith(`${path}.`));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const { patch: generalPatch, numberErrors } = patchFromDraft(draft, settings);
    const routing = routingPatchFromDraft(routingDraft, settings);
    if (routing.badHostLines.length > 0) {
      setErrors(Object.fromEntries(routing.badHostLines.map((n) => [`routing.hosts.${n}`, t('routing.hostsLine', { n })])));
      setFormError(t('settings.invalid'));
      setPage('routing');
      return;
    }
    const antiDpi = checkAntiDpiValues(antiDpiValues);
    setAntiDpiErrors(antiDpi.ok ? {} : antiDpi.errors);
    if (!antiDpi.ok) {
      setFormError(t('settings.invalid'));
      setPage('antiDpi');
      return;
    }
    const antiDpiChange = globalAntiDpiChange(settings.antiDpi, antiDpi.values);
    const sharingChanged = sharingDraft.enabled !== settings.sharing.enabled || sharingDraft.address !== settings.sharing.address;
    const patch: SettingsPatch = { ...generalPatch, ...routing.patch, ...(antiDpiChange ? { antiDpi: antiDpiChange } : {}), ...(sharingChanged ? { sharing: sharingDraft } : {}), ...(JSON.stringify(perAppDraft) !== JSON.stringify(settings.perApp) ? { perApp: perAppDraft } : {}) };
    if (Object.keys(numberErrors).length > 0) {
      setErrors(Object.fromEntries(Object.keys(numberErrors).map((path) => [path, t('settings.mustBeNumber')])));
      setFormError(t('settings.invalid'));
      setPage(numberErrors['monitor.testBudgetBytesPerDay'] ? 'testing' : numberErrors.stallThresholdMs ? 'connection' : 'general');
      return;
    }
    if (Object.keys(patch).length === 0) {
      closeDialog();
      return;
    }
    setSaving(true);
    const result = await saveSettings(patch);
    setSaving(false);
    if (result.ok) {
      pushNotice({ tone: 'info', what: 'settings', key: 'settings.saved' });
      closeDialog();
      return;
    }
    setErrors(validationTexts(t, result.fieldErrors));
    // Show the page that holds the first problem.
    const firstPath = Object.keys(result.fieldErrors)[0] ?? '';
    if (firstPath === 'stallThresholdMs' || firstPath === 'mode') setPage('connection');
    if (firstPath === 'startAtLogin' || firstPath === 'connectOnStart') setPage('startup');
    if (firstPath.startsWith('routing') || firstPath.startsWith('dns')) setPage('routing');
    if (firstPath.startsWith('antiDpi')) setPage('antiDpi');
    if (firstPath.startsWith('sharing')) setPage('sharing');
    if (firstPath.startsWith('perApp')) setPage('apps');
    if (firstPath === 'corePath') setPage('cores');
    if (firstPath === 'monitor.testBudgetBytesPerDay') setPage('testing');
    // A refused value is worded at its field; the form says only that something needs fixing.
    setFormError(result.error === 'invalid' || Object.keys(result.fieldErrors).length > 0 ? t('settings.invalid') : settingsRefusalText(t, result));
  };

  return (
    <Modal labelledBy="settings-title" onCancel={closeDialog} initialFocus={focusMode ? modeField : first} className="settings-dialog">
      <form onSubmit={submit} noValidate>
        <header className="modal-header">
          <h2 id="settings-title">{t('settings.title')}</h2>
        </header>
        <div className="settings-tabs" role="tablist">
          {PAGES.map((name) => (
            <button
              key={name}
              type="button"
              role="tab"
              id={`settings-tab-${name}`}
              aria-selected={page === name}
              aria-controls={`settings-page-${name}`}
              className={page === name ? 'tab selected' : 'tab'}
              onClick={() => setPage(name)}
            >
              {t(PAGE_TITLES[name])}
            </button>
          ))}
        </div>
        <div className="settings-body" role="tabpanel" id="settings-page-routing" aria-labelledby="settings-tab-routing" hidden={page !== 'routing'}>
          <RoutingSettings draft={routingDraft} onChange={setRoutingDraft} errors={errors} />
        </div>
        <div className="settings-body" role="tabpanel" id="settings-page-antiDpi" aria-labelledby="settings-tab-antiDpi" hidden={page !== 'antiDpi'}>
          <AntiDpiSettings values={antiDpiValues} errors={antiDpiErrors} overrides={Object.keys(settings.antiDpi.servers).length} onChange={setAntiDpiValues} />
        </div>
        <div className="settings-body" role="tabpanel" id="settings-page-apps" aria-labelledby="settings-tab-apps" hidden={page !== 'apps'}>
          {page === 'apps' && (
            <PerAppSettings draft={perAppDraft} onChange={setPerAppDraft} systemWide={draft.mode === 'system-wide'} error={Object.entries(errors).find(([key]) => key.startsWith('perApp'))?.[1]} />
          )}
        </div>
        <div className="settings-body" role="tabpanel" id="settings-page-sharing" aria-labelledby="settings-tab-sharing" hidden={page !== 'sharing'}>
          {page === 'sharing' && <SharingSettings draft={sharingDraft} onChange={setSharingDraft} error={errors['sharing.address'] ?? errors.sharing} />}
        </div>
        <div className="settings-body" role="tabpanel" id="settings-page-cores" aria-labelledby="settings-tab-cores" hidden={page !== 'cores'}>
          {page === 'cores' && <CoreSettings draft={draft} error={errors.corePath} onChange={(change) => setDraft((d) => ({ ...d, ...change }))} />}
        </div>
        <div className="settings-body" role="tabpanel" id="settings-page-connection" aria-labelledby="settings-tab-connection" hidden={page !== 'connection'}>
          {/* No heading: the tab names the page. */}
          <Field label={t('settings.stallThreshold')} hint={t('settings.stallThresholdHint')} path="stallThresholdMs" errors={errors}>
            <input type="number" min={1} step={0.5} value={draft.stallThresholdS} aria-invalid={invalid('stallThresholdMs')} onChange={(e) => set('stallThresholdS', e.target.value)} />
          </Field>
          <Field label={t('mode.label')} hint={t(`mode.hint.${draft.mode}`)} path="mode" errors={errors}>
            <select ref={modeField} value={draft.mode} onChange={(e) => set('mode', e.target.value as Draft['mode'])}>
              {CONNECTION_MODES.map((mode) => (
                <option key={mode} value={mode}>
                  {t(`mode.name.${mode}`)}
                </option>
              ))}
            </select>
          </Field>
          {/* What happens to IPv6 in the chosen mode: the proxy modes leave apps that ignore the proxy to go around on IPv6 too. */}
          <p className="hint" data-testid="mode-ipv6">
            {t(draft.mode === 'system-wide' ? 'systemWideIpv6.note' : 'proxyIpv6.note')}
          </p>
          <label className="check-field">
            <input type="checkbox" checked={draft.killSwitch} onChange={(e) => set('killSwitch', e.target.checked)} />
            <span>{t('killSwitch.label')}</span>
            <span className="hint">{t('killSwitch.hint')}</span>
          </label>
          <label className="check-field">
            <input type="checkbox" checked={draft.killSwitchAllowLan} disabled={!draft.killSwitch} onChange={(e) => set('killSwitchAllowLan', e.target.checked)} />
            <span>{t('killSwitch.allowLan')}</span>
          </label>
        </div>
        <div className="settings-body" role="tabpanel" id="settings-page-startup" aria-labelledby="settings-tab-startup" hidden={page !== 'startup'}>
          <StartupFields draft={draft} onChange={(change) => setDraft((d) => ({ ...d, ...change }))} titled={false} />
        </div>
        <div className="settings-body" role="tabpanel" id="settings-page-testing" aria-labelledby="settings-tab-testing" hidden={page !== 'testing'}>
          {page === 'testing' && (
            <TestingSettings draft={draft} error={errors['monitor.testBudgetBytesPerDay']} onChange={(change) => setDraft((d) => ({ ...d, ...change }))} />
          )}
        </div>
        <div className="settings-body" role="tabpanel" id="settings-page-general" aria-labelledby="settings-tab-general" hidden={page !== 'general'}>
          <Field label={t('settings.language')} path="language" errors={errors}>
            <select ref={first} value={draft.language} onChange={(e) => set('language', e.target.value as Draft['language'])}>
              <option value="system">{t('settings.languageSystem', { name: LANGUAGE_NAMES[matchLanguage(systemLanguage)] })}</option>
              {LANGUAGES.map((language) => (
                <option key={language} value={language} lang={language}>
                  {LANGUAGE_NAMES[language]}
                </option>
              ))}
            </select>
          </Field>
          <Field label={t('settings.theme')} path="theme" errors={errors}>
            <select value={draft.theme} onChange={(e) => set('theme', e.target.value as Draft['theme'])}>
              <option value="system">{t('settings.themeSystem')}</option>
              <option value="light">{t('settings.themeLight')}</option>
              <option value="dark">{t('settings.themeDark')}</option>
            </select>
          </Field>
          <fieldset>
            <legend>{t('settings.monitor')}</legend>
            <Field label={t('settings.testUrls')} hint={t('settings.testUrlsHint')} path="monitor.urls" errors={errors}>
              <textarea dir="ltr" rows={3} spellCheck={false} value={draft.testUrls} aria-invalid={invalid('monitor.urls')} onChange={(e) => set('testUrls', e.target.value)} />
            </Field>
            <Field label={t('settings.ipInfoUrl')} hint={t('settings.ipInfoUrlHint')} path="monitor.ipInfoUrl" errors={errors}>
              <input type="url" dir="ltr" spellCheck={false} value={draft.ipInfoUrl} aria-invalid={invalid('monitor.ipInfoUrl')} onChange={(e) => set('ipInfoUrl', e.target.value)} />
            </Field>
            <div className="field-row">
              <Field label={t('settings.workers')} path="monitor.workers" errors={errors}>
                <input type="number" min={1} max={64} value={draft.workers} aria-invalid={invalid('monitor.workers')} onChange={(e) => set('workers', e.target.value)} />
              </Field>
              <Field label={t('settings.interval')} path="monitor.intervalMs" errors={errors}>
                <input type="number" min={0} step={0.5} value={draft.intervalMin} aria-invalid={invalid('monitor.intervalMs')} onChange={(e) => set('intervalMin', e.target.value)} />
              </Field>
              <Field label={t('settings.idleTimeout')} path="monitor.idleTimeoutMs" errors={errors}>
                <input type="number" min={0} step={0.5} value={draft.idleTimeoutMin} aria-invalid={invalid('monitor.idleTimeoutMs')} onChange={(e) => set('idleTimeoutMin', e.target.value)} />
              </Field>
            </div>
            <label className="check-field">
              <input type="checkbox" checked={draft.verifyIpv6} onChange={(e) => set('verifyIpv6', e.target.checked)} />
              <span>{t('settings.verifyIpv6')}</span>
              <span className="hint">{t('settings.verifyIpv6Hint')}</span>
            </label>
          </fieldset>
          <fieldset>
            <legend>{t('settings.advanced')}</legend>
            <Field label={t('settings.trustedChecker')} hint={t('settings.trustedCheckerHint')} path="trustedCheckerId" errors={errors}>
              <select value={draft.trustedCheckerId} onChange={(e) => set('trustedCheckerId', e.target.value)}>
                <option value="">{t('common.none')}</option>
                {subscriptions.map((subscription) => (
                  <optgroup key={subscription.id} label={subscription.name}>
                    {subscription.servers.map((server) => (
                      <option key={server.id} value={server.id}>
                        {server.name}
                      </option>
                    ))}
                  </optgroup>
                ))}
              </select>
            </Field>
            <Field label={t('settings.logLevel')} path="logLevel" errors={errors}>
              <select value={draft.logLevel} onChange={(e) => set('logLevel', e.target.value as Draft['logLevel'])}>
                {(['debug', 'info', 'warning', 'error'] as const).map((level) => (
                  <option key={level} value={level}>
                    {t(`logLevel.${level}`)}
                  </option>
                ))}
              </select>
            </Field>
          </fieldset>
        </div>
        <FormError>{formError}</FormError>
        <FormFooter onCancel={closeDialog} submitLabel={t('common.save')} busyLabel={t('common.saving')} busy={saving} />
      </form>
    </Modal>
  );
}
