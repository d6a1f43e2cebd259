import { TOKEN_PARAM, WS_PATH } from '../../../shared/ipc/wire';

const STORAGE_KEY = 'steadfast.hostToken';

export interface TokenPlace {
  location: Pick<Location, 'href'>;
  storage: Pick<Storage, 'getItem' | 'setItem'>;
  history: Pick<History, 'replaceState' | 'state'>;
}

/**
 * Takes the headless host's per-run token from the page URL (`?token=`), keeps it in session
 * storage so a reload still works, and removes it from the visible URL so it does not end up in
 * screenshots, bookmarks or a shoulder-surfer's view.
 */
export function takeToken({ location, storage, history }: TokenPlace): string | null {
  const url = new URL(location.href);
  const fromUrl = url.searchParams.get(TOKEN_PARAM);
  if (fromUrl) {
    storage.setItem(STORAGE_KEY, fromUrl);
    url.searchParams.delete(TOKEN_PARAM);
    history.replaceState(history.state, '', url.pathname + url.search + url.hash);
    return fromUrl;
  }
  return storage.getItem(STORAGE_KEY);
}

/** The WebSocket URL of the host that served this page. */
export function hostSocketUrl(pageHref: string, token: string): string {
  const page = new URL(pageHref);
  const scheme = page.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${page.host}${WS_PATH}?${TOKEN_PARAM}=${encodeURIComponent(token)}`;
}
