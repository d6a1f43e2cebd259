import { Menu, type MenuItemConstructorOptions, type NativeImage, nativeImage, Notification, Tray } from 'electron';
import type { EventName, EventPayloads } from '../../shared/ipc/contract';
import type { Language } from '../../shared/settings';
import { buildTrayMenu, EMPTY_TRAY_STATE, type TrayAction, type TrayMenuItem, type TrayState, trayCountsDown, trayStateAfter, trayTooltip } from './tray-menu';
import { countryNamer, trayName } from './tray-flags';
import { type TrayRequest, trayLanguage, trayRefusalNotice, trayTranslator } from './tray-text';

/** Turns the menu data into Electron's template; clicks become actions, flags become icons. */
export function toMenuTemplate(
  items: readonly TrayMenuItem[],
  dispatch: (action: TrayAction) => void,
  flagIcon: (code: string) => NativeImage | null = () => null,
): MenuItemConstructorOptions[] {
  const icon = (flag: string | undefined) => {
    const image = flag ? flagIcon(flag) : null;
    return image ? { icon: image } : {};
  };
  return items.map((item): MenuItemConstructorOptions => {
    switch (item.kind) {
      case 'separator':
        return { type: 'separator' };
      case 'label':
        return { label: item.label, enabled: false, ...icon(item.flag) };
      case 'action':
        return { label: item.label, enabled: item.enabled, click: () => dispatch(item.action) };
      case 'checkbox':
        return { label: item.label, type: 'checkbox', checked: item.checked, click: () => dispatch(item.action), ...icon(item.flag) };
      case 'submenu':
        return { label: item.label, submenu: toMenuTemplate(item.items, dispatch, flagIcon), ...icon(item.flag) };
    }
  });
}

export interface DesktopTrayOptions {
  /** The icon for the state: connected (or on the way) versus not. */
  iconPath: (connected: boolean) => string;
  systemLocale: string;
  /** The PNG of a country's flag for menu items (tray-flags.ts `loadTrayFlags`); null: none. */
  flagPath?: (code: string) => string | null;
  dispatch: (action: TrayAction) => void;
  /** Clicking the icon itself (Windows, most Linux trays): show the window. */
  onClick: () => void;
}

/**
 * The tray icon and its menu, rebuilt from the engine's events. The menu is only replaced when
 * what it shows changed (status bursts arrive every half second; some Linux trays flicker on
 * every replacement).
 */
export class DesktopTray {
  private readonly tray: Tray;
  private state: TrayState = EMPTY_TRAY_STATE;
  private language: Language | 'system' = 'system';
  private shown = '';
  private connectedIcon = false;
  private readonly flagImages = new Map<string, NativeImage | null>();
  /** Redraws the countdown of "next try in 15 s" each second while the network is lost. */
  private ticker: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly options: DesktopTrayOptions) {
    this.tray = new Tray(nativeImage.createFromPath(options.iconPath(false)));
    this.tray.on('click', () => options.onClick());
    this.render();
  }

  onEvent<E extends EventName>(event: E, payload: EventPayloads[E]): void {
    if (event === 'settings') this.language = (payload as EventPayloads['settings']).language;
    if (event === 'snapshot') this.language = (payload as EventPayloads['snapshot']).settings.language;
    this.state = trayStateAfter(this.state, event, payload);
    this.render();
  }

  /**
   * Tells the user the engine refused what they asked from the tray: the window may be closed, so
   * a refusal only logged would leave them wondering why nothing happened. Said in the tray's language.
   */
  tellRefusal(request: TrayRequest, error: unknown): void {
    if (!Notification.isSupported()) return;
    new Notification(trayRefusalNotice(trayTranslator(this.currentLanguage()), request, error)).show();
  }

  destroy(): void {
    this.tick(false);
    this.tray.destroy();
  }

  private currentLanguage(): Language {
    return trayLanguage(this.language, this.options.systemLocale);
  }

  /** Each flag is read from disk once (a menu is rebuilt on every change it shows). */
  private flagImage(code: string): NativeImage | null {
    if (!this.flagImages.has(code)) {
      const path = this.options.flagPath?.(code) ?? null;
      this.flagImages.set(code, path ? nativeImage.createFromPath(path) : null);
    }
    return this.flagImages.get(code) ?? null;
  }

  private tick(on: boolean): void {
    if (on && this.ticker === null) {
      this.ticker = setInterval(() => this.render(), 1000);
      this.ticker.unref?.();
    }
    if (!on && this.ticker !== null) {
      clearInterval(this.ticker);
      this.ticker = null;
    }
  }

  private render(): void {
    const now = Date.now();
    const language = this.currentLanguage();
    const t = trayTranslator(language);
    const countries = countryNamer(language);
    const nameOf = (name: string) => trayName(name, countries);
    const items = buildTrayMenu(this.state, t, nameOf, now);
    const tooltip = trayTooltip(this.state, t, nameOf, now);
    const countingDown = trayCountsDown(this.state, now);
    this.tick(countingDown);
    const fingerprint = JSON.stringify([items, tooltip]);
    if (fingerprint !== this.shown) {
      this.shown = fingerprint;
      this.tray.setContextMenu(Menu.buildFromTemplate(toMenuTemplate(items, this.options.dispatch, (code) => this.flagImage(code))));
      this.tray.setToolTip(tooltip);
    }
    // A lost network is not shown with the connected icon.
    const connected = this.state.connection?.state === 'connected' && !countingDown;
    if (connected !== this.connectedIcon) {
      this.connectedIcon = connected;
      this.tray.setImage(nativeImage.createFromPath(this.options.iconPath(connected)));
    }
  }
}
