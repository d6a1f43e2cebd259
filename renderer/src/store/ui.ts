/** What only this window cares about: language and theme in effect, the filter, notices, the link. */
import type { RefusalCode } from '../../../shared/domain/refusal';
import type { SubscriptionId } from '../../../shared/domain/server';
import { LANGUAGES, type Language } from '../../../shared/languages';
import type { AppState, SliceDeps } from './types';

export type LinkState = 'connecting' | 'open' | 'reconnecting' | 'closed';
export type SortMode = 'list' | 'ping' | 'speed';
export type NoticeAction =
  | 'connect'
  | 'disconnect'
  | 'auto'
  | 'exclude'
  | 'testAll'
  | 'testServer'
  | 'measureThroughput'
  | 'speedTest'
  | 'measureDirect'
  | 'history'
  | 'addSubscription'
  | 'updateSubscription'
  | 'removeSubscription'
  | 'reorder'
  | 'confirmEmpty'
  | 'settings'
  | 'snapshot'
  | 'lab'
  | 'copy'
  | 'dismissProblem'
  | 'import';

export interface Notice {
  id: number;
  tone: 'error' | 'info';
  /** What the user was doing (named in their language). */
  what: NoticeAction;
  /** The host's own words, when it gave any (shown as details when there is a code). */
  text?: string;
  /** The engine's refusal code: said in the user's language, the host's words beside it. */
  code?: RefusalCode;
  /** A message of ours, as a translation key. */
  key?: string;
}

/** Facts about the machine the store starts from (injected so tests choose them). */
export interface UiEnvironment {
  /** navigator.language */
  systemLanguage: string;
  /** prefers-color-scheme: dark */
  prefersDark: boolean;
}

export interface UiState {
  systemLanguage: string;
  prefersDark: boolean;
  filter: string;
  sort: SortMode;
  collapsed: Record<SubscriptionId, boolean>;
  notices: Notice[];
  link: LinkState;
  /** The first snapshot has arrived. */
  ready: boolean;
  /** The host runs the demo world (the Lab panel may be shown). */
  demo: boolean;
}

export interface UiActions {
  setFilter(filter: string): void;
  setSort(sort: SortMode): void;
  toggleCollapsed(subscriptionId: SubscriptionId): void;
  pushNotice(notice: Omit<Notice, 'id'>): void;
  dismissNotice(id: number): void;
  setLink(link: LinkState): void;
  setPrefersDark(prefersDark: boolean): void;
}

export type UiSlice = UiState & UiActions;

/** At most this many notices are kept; older ones go first. */
const NOTICES_KEPT = 4;

export function uiInitialState(env: UiEnvironment): UiState {
  return {
    systemLanguage: env.systemLanguage,
    prefersDark: env.prefersDark,
    filter: '',
    sort: 'list',
    collapsed: {},
    notices: [],
    link: 'connecting',
    ready: false,
    demo: false,
  };
}

export function createUiSlice({ set, get }: SliceDeps, env: UiEnvironment): UiSlice {
  let nextNoticeId = 1;
  return {
    ...uiInitialState(env),
    setFilter: (filter) => set({ filter }),
    setSort: (sort) => set({ sort }),
    toggleCollapsed: (id) => set({ collapsed: { ...get().collapsed, [id]: !get().collapsed[id] } }),
    pushNotice: (notice) => set({ notices: [...get().notices, { ...notice, id: nextNoticeId++ }].slice(-NOTICES_KEPT) }),
    dismissNotice: (id) => set({ notices: get().notices.filter((n) => n.id !== id) }),
    setLink: (link) => set({ link }),
    setPrefersDark: (prefersDark) => set({ prefersDark }),
  };
}

/** A browser language tag ("fa-IR", "zh-Hans-CN") to one of ours; English when we have none. */
export function matchLanguage(tag: string): Language {
  const primary = tag.toLowerCase().split(/[-_]/)[0] ?? '';
  return (LANGUAGES as readonly string[]).includes(primary) ? (primary as Language) : 'en';
}

/** The language in effect: the setting, or the system's when the setting is "system". */
export function selectLanguage(state: Pick<AppState, 'settings' | 'systemLanguage'>): Language {
  const chosen = state.settings.language;
  return chosen === 'system' ? matchLanguage(state.systemLanguage) : chosen;
}

const RTL_LANGUAGES: ReadonlySet<Language> = new Set(['fa', 'ar']);

export function directionOf(language: Language): 'rtl' | 'ltr' {
  return RTL_LANGUAGES.has(language) ? 'rtl' : 'ltr';
}

export function selectTheme(state: Pick<AppState, 'settings' | 'prefersDark'>): 'light' | 'dark' {
  const chosen = state.settings.theme;
  return chosen === 'system' ? (state.prefersDark ? 'dark' : 'light') : chosen;
}
