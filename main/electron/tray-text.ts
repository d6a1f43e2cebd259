import type { ConnectionStateName } from '../../shared/domain/connection';
import { REFUSAL_CODES, type RefusalCode, refusalCodeOf } from '../../shared/domain/refusal';
import { type ConnectionMode, LANGUAGES, type Language } from '../../shared/settings';
import { CATALOGUE } from '../../renderer/src/i18n/catalogue';

/** The tray menu's words, each the window's own text from the one catalogue (renderer/src/i18n). */
export type TrayTextKey =
  | ConnectionStateName
  | 'connect'
  | 'disconnect'
  | 'auto'
  | 'showWindow'
  | 'quit'
  | 'modeLine'
  | 'killSwitch'
  | 'networkLost'
  | 'servers'
  | 'serverConnect'
  | 'serverTest'
  | 'serverExclude'
  | 'serverInclude'
  | 'networkLostNow'
  | 'networkLostChecking'
  | `mode-${ConnectionMode}`
  | `failed-${TrayRequest}`
  | `refusal-${RefusalCode}`;
/** The tray's menu items that ask the engine something, which the engine may refuse. */
export type TrayRequest = 'connect' | 'disconnect' | 'set-auto' | 'connect-server' | 'test-server' | 'set-excluded';
export const TRAY_REQUESTS: readonly TrayRequest[] = ['connect', 'disconnect', 'set-auto', 'connect-server', 'test-server', 'set-excluded'];
export type TrayTranslate = (key: TrayTextKey, vars?: Record<string, string>) => string;

/** Where each tray word lives in the catalogue (a dotted path, as i18next names keys). */
export const TRAY_TEXT_PATHS: Record<TrayTextKey, string> = {
  disconnected: 'connection.state.disconnected',
  connecting: 'connection.state.connecting',
  connected: 'connection.state.connected',
  reconnecting: 'connection.state.reconnecting',
  failed: 'connection.state.failed',
  connect: 'connection.connect',
  disconnect: 'connection.disconnect',
  auto: 'subscription.auto',
  showWindow: 'desktop.tray.showWindow',
  quit: 'desktop.tray.quit',
  modeLine: 'desktop.tray.modeLine',
  killSwitch: 'killSwitch.label',
  networkLost: 'truth.networkLost',
  servers: 'list.label',
  serverConnect: 'rowMenu.connect',
  serverTest: 'rowMenu.test',
  serverExclude: 'rowMenu.exclude',
  serverInclude: 'rowMenu.include',
  networkLostNow: 'truth.networkLostNow',
  networkLostChecking: 'truth.networkLostChecking',
  'mode-proxy': 'mode.short.proxy',
  'mode-system-proxy': 'mode.short.system-proxy',
  'mode-system-wide': 'mode.short.system-wide',
  // A refused tray request is told as the window's notice tells it: what failed, then why.
  'failed-connect': 'notice.connect',
  'failed-disconnect': 'notice.disconnect',
  'failed-set-auto': 'notice.auto',
  'failed-connect-server': 'notice.connect',
  'failed-test-server': 'notice.testServer',
  'failed-set-excluded': 'notice.exclude',
  ...(Object.fromEntries(REFUSAL_CODES.map((code) => [`refusal-${code}`, `refusal.${code}`])) as Record<`refusal-${RefusalCode}`, string>),
};

/** The text at a dotted path of one language's catalogue, or undefined when it has none. */
export function catalogueText(language: Language, path: string): string | undefined {
  let node: unknown = CATALOGUE[language];
  for (const part of path.split('.')) node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  return typeof node === 'string' ? node : undefined;
}

/** The user's language, or the system's (`app.getLocale()`, e.g. "fa-IR") when set to "system". */
export function trayLanguage(setting: Language | 'system', systemLocale: string): Language {
  if (setting !== 'system') return setting;
  const base = systemLocale.toLowerCase().split(/[-_]/)[0] as Language;
  return LANGUAGES.includes(base) ? base : 'en';
}

export function trayTranslator(language: Language): TrayTranslate {
  return (key, vars = {}) => {
    const path = TRAY_TEXT_PATHS[key];
    // English stands in for a missing text, as i18next's fallback does in the window.
    const text = catalogueText(language, path) ?? catalogueText('en', path) ?? path;
    return text.replace(/\{\{(\w+)\}\}/g, (_m, name: string) => vars[name] ?? '');
  };
}

/**
 * What the user is told when the engine refuses a tray request (they may not have the window open):
 * what failed as its title, and why, in their language when the engine named the refusal's code,
 * else in the engine's words.
 */
export function trayRefusalNotice(t: TrayTranslate, request: TrayRequest, error: unknown): { title: string; body: string } {
  const code = refusalCodeOf(error);
  const body = code ? t(`refusal-${code}`) : error instanceof Error ? error.message : String(error);
  return { title: t(`failed-${request}`), body };
}
