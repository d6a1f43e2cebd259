import type { ConnectionStateName } from '../../shared/domain/connection';
import { type ConnectionMode, LANGUAGES, type Language } from '../../shared/settings';

/**
 * The tray menu's words in the app's five languages. The renderer has its own catalogue (hosts
 * never import the UI); these few strings are all the tray needs.
 */
export type TrayTextKey = ConnectionStateName | 'connect' | 'connectTo' | 'disconnect' | 'auto' | 'showWindow' | 'quit' | 'modeLine' | `mode-${ConnectionMode}`;
export type TrayTranslate = (key: TrayTextKey, vars?: Record<string, string>) => string;

const CATALOGUE: Record<Language, Record<TrayTextKey, string>> = {
  en: {
    disconnected: 'Disconnected',
    connecting: 'Connecting…',
    connected: 'Connected',
    reconnecting: 'Reconnecting…',
    failed: 'Connection failed',
    connect: 'Connect',
    connectTo: 'Connect to {{server}}',
    disconnect: 'Disconnect',
    auto: 'Auto',
    showWindow: 'Show Steadfast VPN',
    quit: 'Quit',
    modeLine: 'Mode: {{mode}}',
    'mode-proxy': 'Local proxy',
    'mode-system-proxy': 'System proxy',
    'mode-system-wide': 'System-wide',
  },
  ru: {
    disconnected: 'Отключено',
    connecting: 'Подключение…',
    connected: 'Подключено',
    reconnecting: 'Переподключение…',
    failed: 'Ошибка подключения',
    connect: 'Подключить',
    connectTo: 'Подключиться к {{server}}',
    disconnect: 'Отключить',
    auto: 'Авто',
    showWindow: 'Показать Steadfast VPN',
    quit: 'Выход',
    modeLine: 'Режим: {{mode}}',
    'mode-proxy': 'Локальный прокси',
    'mode-system-proxy': 'Системный прокси',
    'mode-system-wide': 'Весь компьютер',
  },
  fa: {
    disconnected: 'قطع',
    connecting: 'در حال اتصال…',
    connected: 'متصل',
    reconnecting: 'در حال اتصال دوباره…',
    failed: 'اتصال ناموفق بود',
    connect: 'اتصال',
    connectTo: 'اتصال به {{server}}',
    disconnect: 'قطع اتصال',
    auto: 'خودکار',
    showWindow: 'نمایش Steadfast VPN',
    quit: 'خروج',
    modeLine: 'حالت: {{mode}}',
    'mode-proxy': 'پروکسی محلی',
    'mode-system-proxy': 'پروکسی سیستم',
    'mode-system-wide': 'کل سیستم',
  },
  ar: {
    disconnected: 'غير متصل',
    connecting: 'جارٍ الاتصال…',
    connected: 'متصل',
    reconnecting: 'جارٍ إعادة الاتصال…',
    failed: 'فشل الاتصال',
    connect: 'اتصال',
    connectTo: 'الاتصال بـ {{server}}',
    disconnect: 'قطع الاتصال',
    auto: 'تلقائي',
    showWindow: 'إظهار Steadfast VPN',
    quit: 'إنهاء',
    modeLine: 'الوضع: {{mode}}',
    'mode-proxy': 'الوكيل المحلي',
    'mode-system-proxy': 'وكيل النظام',
    'mode-system-wide': 'النظام كله',
  },
  zh: {
    disconnected: '未连接',
    connecting: '正在连接…',
    connected: '已连接',
    reconnecting: '正在重新连接…',
    failed: '连接失败',
    connect: '连接',
    connectTo: '连接到 {{server}}',
    disconnect: '断开连接',
    auto: '自动',
    showWindow: '显示 Steadfast VPN',
    quit: '退出',
    modeLine: '模式：{{mode}}',
    'mode-proxy': '本地代理',
    'mode-system-proxy': '系统代理',
    'mode-system-wide': '全局',
  },
};

/** The user's language, or the system's (`app.getLocale()`, e.g. "fa-IR") when set to "system". */
export function trayLanguage(setting: Language | 'system', systemLocale: string): Language {
  if (setting !== 'system') return setting;
  const base = systemLocale.toLowerCase().split(/[-_]/)[0] as Language;
  return LANGUAGES.includes(base) ? base : 'en';
}

export function trayTranslator(language: Language): TrayTranslate {
  const words = CATALOGUE[language] ?? CATALOGUE.en;
  return (key, vars = {}) => words[key].replace(/\{\{(\w+)\}\}/g, (_m, name: string) => vars[name] ?? '');
}
