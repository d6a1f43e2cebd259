/**
 * Settings → Sharing and the kill switch's crash message in the real UI, in all five languages
 * (Persian and Arabic right to left), as root in network namespaces this test creates and removes.
 *
 * The headless host (`npm run headless`, the real engine and Xray) runs in the system-wide world's
 * "user machine", whose one link holds a public address toward the world (198.51.100.1) and a
 * private one on the household's LAN (192.168.77.1); Chromium runs in the same namespace, so the
 * page reaches the host on that machine's loopback. The world's LAN address (192.168.77.2) is the
 * household's other device.
 *
 * Sharing: the page warns, offers the private address and shows the public one as not to be
 * shared on; turned on and saved, the engine's settings hold it and the proxies listen there; the
 * logins the "TV" gets wrong are counted on the page; "Show" gives the credentials the engine
 * made (the file in the data folder) and a QR code that reads back as the SOCKS5 link, and with
 * those the TV reaches the world's site through the server.
 *
 * The kill switch: turned on in Settings → Connection, the host killed with SIGKILL: the next
 * start says in words that it is still on, in every language, with "Turn off"; pressed, the
 * engine's settings say off, the rules are gone and direct traffic works again.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import jsQR from 'jsqr';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IP_INFO_SERVICES } from '../../shared/settings';
import { processesMentioning, waitUntil } from '../../app/tunnel/testing/processes';
import { SHARING_CREDENTIALS_FILE } from '../../app/sharing/credentials';
import { ADDRESSES, namespacesAvailable } from '../system-wide/netns';
import { ourTables } from '../system-wide/leak-watch';
import { startSystemWideWorld, type SystemWideWorld, TARGET_URL } from '../system-wide/world';
import { measureBoxes, readsLeftToRight } from './boxes';
import { type AppPage, eventually, launchChromium, moveTo, openApp, pixelsOf, screenshot } from './harness';

const exec = promisify(execFile);

/** The window's words this test reads, as renderer/src/i18n/locales/ writes them. */
const LOCALES = {
  en: {
    settings: 'Settings',
    save: 'Save',
    page: 'Sharing',
    warning: 'Every device on that network can try to use it: only the username and password below keep it out. Share them only with people you trust, and turn sharing off on a network you do not know.',
    enable: 'Share the proxies with other devices on my network',
    notPrivate: (address: string, device: string) => `${address} (${device}): not a private network address, cannot be shared on`,
    listening: 'Listening for the household on',
    failedLogins: 'Refused logins since the app started: ',
    reveal: 'Show the username, password and QR code',
    username: 'Username',
    password: 'Password',
    qr: 'QR code of the shared SOCKS5 proxy, for a phone',
    qrName: 'Steadfast at home',
    killSwitch: 'Kill switch',
    left: /^The kill switch is still on \(since .+\): nothing leaves this computer outside the VPN until you turn it off\./,
    turnOff: 'Turn off the kill switch',
  },
  ru: {
    settings: 'Настройки',
    save: 'Сохранить',
    page: 'Общий доступ',
    warning: 'Любое устройство в этой сети может попробовать подключиться: его не пустят только имя пользователя и пароль ниже. Давайте их только тем, кому доверяете, и выключайте общий доступ в незнакомой сети.',
    enable: 'Открыть прокси для других устройств в моей сети',
    notPrivate: (address: string, device: string) => `${address} (${device}): не адрес частной сети, открыть на нём нельзя`,
    listening: 'Для домашних открыто на',
    failedLogins: 'Отклонённых входов с запуска приложения: ',
    reveal: 'Показать имя, пароль и QR-код',
    username: 'Имя пользователя',
    password: 'Пароль',
    qr: 'QR-код общего SOCKS5-прокси для телефона',
    qrName: 'Steadfast дома',
    killSwitch: 'Аварийный выключатель',
    left: /^Аварийный выключатель всё ещё включён \(с .+\): ничто не уходит с компьютера мимо VPN/,
    turnOff: 'Выключить аварийный выключатель',
  },
  fa: {
    settings: 'تنظیمات',
    save: 'ذخیره',
    page: 'اشتراک',
    warning: 'هر دستگاهی در آن شبکه می‌تواند برای استفاده تلاش کند: فقط نام کاربری و گذرواژهٔ زیر جلوی آن را می‌گیرد. آن‌ها را فقط به کسانی بدهید که به آن‌ها اعتماد دارید و در شبکه‌ای که نمی‌شناسید اشتراک را خاموش کنید.',
    enable: 'پراکسی‌ها را با دستگاه‌های دیگر شبکه‌ام به اشتراک بگذار',
    notPrivate: (address: string, device: string) => `${address} (${device}): نشانی شبکهٔ خصوصی نیست، اشتراک روی آن ممکن نیست`,
    listening: 'برای اهل خانه در دسترس روی',
    failedLogins: 'ورودهای ردشده از آغاز برنامه: ',
    reveal: 'نمایش نام کاربری، گذرواژه و کد QR',
    username: 'نام کاربری',
    password: 'گذرواژه',
    qr: 'کد QR پراکسی SOCKS5 مشترک، برای تلفن',
    qrName: 'Steadfast در خانه',
    killSwitch: 'کلید قطع اضطراری',
    left: /^کلید قطع اضطراری هنوز روشن است \(از .+\)/,
    turnOff: 'خاموش کردن کلید قطع اضطراری',
  },
  ar: {
    settings: 'الإعدادات',
    save: 'حفظ',
    page: 'المشاركة',
    warning: 'يستطيع كل جهاز على تلك الشبكة أن يحاول استخدامه: لا يمنعه إلا اسم المستخدم وكلمة المرور أدناه. لا تعطهما إلا لمن تثق به، وأوقف المشاركة على شبكة لا تعرفها.',
    enable: 'شارك الوكلاء مع الأجهزة الأخرى على شبكتي',
    notPrivate: (address: string, device: string) => `${address} (${device}): ليس عنوان شبكة خاصة، لا تمكن المشاركة عليه`,
    listening: 'متاح لأهل البيت على',
    failedLogins: 'محاولات الدخول المرفوضة منذ بدء التطبيق: ',
    reveal: 'أظهر اسم المستخدم وكلمة المرور ورمز QR',
    username: 'اسم المستخدم',
    password: 'كلمة المرور',
    qr: 'رمز QR لوكيل SOCKS5 المشترك، للهاتف',
    qrName: 'Steadfast في البيت',
    killSwitch: 'مفتاح القطع',
    left: /^مفتاح القطع ما زال مفعّلًا \(منذ .+\)/,
    turnOff: 'إطفاء مفتاح القطع',
  },
  zh: {
    settings: '设置',
    save: '保存',
    page: '共享',
    warning: '该网络上的每台设备都可以尝试使用它：只有下面的用户名和密码能把它们挡在外面。只告诉你信任的人，并在陌生网络上关闭共享。',
    enable: '与我网络上的其他设备共享代理',
    notPrivate: (address: string, device: string) => `${address}（${device}）：不是私有网络地址，不能在其上共享`,
    listening: '为家人开放于',
    failedLogins: '自应用启动以来被拒绝的登录：',
    reveal: '显示用户名、密码和二维码',
    username: '用户名',
    password: '密码',
    qr: '共享 SOCKS5 代理的二维码，供手机使用',
    qrName: 'Steadfast 家中',
    killSwitch: '断网保护',
    left: /^断网保护仍在生效（自 .+ 起）/,
    turnOff: '关闭断网保护',
  },
} as const;
type Language = keyof typeof LOCALES;
const LANGUAGES = Object.keys(LOCALES) as Language[];

const HTTP_PORT = 18809;
const SOCKS_PORT = 18808;
/**
 * What a person reads or clicks on the sharing page: the atoms the box check measures. A token isolated
 * inside a sentence (bdi.technical) counts as part of its sentence: an inline box's content area
 * reaches past its line, so those on adjacent lines touch while their glyphs do not.
 */
const ATOMS = ['legend', '.share-warning', '.check-field > span', '.field > span', 'select', 'button', 'bdi:not(.technical)', 'dt', 'dd', '.share-qr', '.sharing-status', '.sharing-failures', '.hint', '.muted'];

interface Host {
  child: ChildProcess;
  url: Promise<string>;
  output(): string;
}

let world: SystemWideWorld;
let dataDir: string;
let settingsFile: string;
let subscriptionUrl: string;
let browser: Browser;
let app: AppPage;
let page: Page;
let host: Host | null = null;

/** `npm run headless` in the user machine, its UI on that machine's loopback. */
function startHost(extra: string[]): Host {
  const child = world.startIn(world.topology.user, [process.execPath, '--import', 'tsx', 'main/headless/main.ts', '--data-dir', dataDir, '--port', '0', '--settings', settingsFile, ...extra]);
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', () => {
      const found = /^(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(out);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the host exited (${String(code)}):\n${out}`)));
  });
  return { child, url, output: () => out };
}

/** curl from the household's other device (the world's LAN address): the body, or curl's exit code. */
async function fromDevice(args: string[]): Promise<{ out: string; code: number }> {
  try {
    const { stdout } = await exec('ip', ['netns', 'exec', world.topology.world, 'curl', '-s', '-m', '5', '--interface', ADDRESSES.lan, ...args], { timeout: 15_000 });
    return { out: stdout.trim(), code: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; code?: number };
    return { out: String(failed.stdout ?? '').trim(), code: Number(failed.code ?? -1) };
  }
}

/** What the engine saved: its settings file in the data folder. */
async function savedSettings(): Promise<{ language: string; sharing: { enabled: boolean; address: string }; killSwitch: boolean }> {
  return JSON.parse(await readFile(join(dataDir, 'settings.json'), 'utf8')) as never;
}

const settingsDialog = (language: Language) => page.getByRole('dialog', { name: LOCALES[language].settings });

async function openSettings(language: Language): Promise<Locator> {
  await page.getByRole('button', { name: LOCALES[language].settings, exact: true }).click();
  const dialog = settingsDialog(language);
  await dialog.waitFor();
  return dialog;
}

/** The language chosen as a person does: Settings → General → Language, Save. */
async function chooseLanguage(from: Language, to: Language): Promise<void> {
  const dialog = await openSettings(from);
  await dialog.locator('#settings-tab-general').click();
  await dialog.locator('#settings-page-general select:has(option[value="zh"])').selectOption(to);
  await dialog.getByRole('button', { name: LOCALES[from].save, exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  await eventually(`<html lang="${to}">`, 10_000, async () => ((await page.evaluate(() => document.documentElement.lang)) === to ? true : undefined));
  expect(await page.evaluate(() => document.documentElement.dir)).toBe(to === 'fa' || to === 'ar' ? 'rtl' : 'ltr');
}

const settle = () => page.evaluate(() => document.fonts.ready.then(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))));

describe.skipIf(!namespacesAvailable())('Settings → Sharing and the kill switch’s message in five languages (root, namespaces)', () => {
  beforeAll(async () => {
    world = await startSystemWideWorld();
    dataDir = join(world.dir, 'data-ui');
    await mkdir(dataDir, { recursive: true });
    // The subscription served from the world, as a provider would.
    world.startIn(world.topology.world, ['python3', '-m', 'http.server', '8081', '--bind', ADDRESSES.target, '--directory', world.dir]);
    subscriptionUrl = `http://${ADDRESSES.target}:8081/subscription.txt`;
    expect(await waitUntil(async () => (await world.inUser(['curl', '-s', '-m', '1', subscriptionUrl]).catch(() => '')).startsWith('vmess://'), 10_000, 200)).toBe(true);
    const ipInfoUrls = Object.fromEntries([...IP_INFO_SERVICES, 'cloudflare-trace'].map((service) => [service, `${TARGET_URL}ipinfo/${service}`]));
    settingsFile = join(world.dir, 'ui-settings.json');
    await writeFile(settingsFile, JSON.stringify({ httpPort: HTTP_PORT, socksPort: SOCKS_PORT, monitor: { urls: [`${TARGET_URL}generate_204`], ipInfoUrls, transferTestUrl: `${TARGET_URL}bytes/{bytes}` } }));
    host = startHost(['--subscription', subscriptionUrl]);
    const url = await host.url;
    browser = await launchChromium({ namespace: world.topology.user });
    app = await openApp(browser, url, { width: 1280, height: 900 });
    page = app.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (host?.child.exitCode === null) host.child.kill('SIGTERM');
    if (host) await waitUntil(() => host!.child.exitCode !== null || host!.child.signalCode !== null, 10_000);
    for (const pid of dataDir ? processesMentioning(dataDir) : []) process.kill(pid, 'SIGKILL');
    const names = [world?.topology.user, world?.topology.world];
    await world?.close();
    const { stdout } = await exec('ip', ['netns', 'list']);
    for (const name of names) if (name) expect(stdout).not.toContain(name);
  });

  it('shares on the private address only, counts refused logins, and shows the engine’s credentials and their QR code', async () => {
    const en = LOCALES.en;
    // Connected, as the household's devices need it.
    const row = page.locator('[role="listitem"][data-server-id]').first();
    await row.click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Connect', exact: true }).click();
    await page.locator('.state-connected').waitFor({ timeout: 30_000 });

    // Turned on, on the LAN address; the public one is there, greyed, with why.
    let dialog = await openSettings('en');
    await dialog.getByRole('tab', { name: en.page, exact: true }).click();
    const sharing = dialog.locator('#settings-page-sharing');
    expect(await sharing.getByRole('note').textContent()).toBe(en.warning);
    const select = sharing.locator('select');
    const lan = select.locator(`option[value="${ADDRESSES.userLan}"]`);
    await lan.waitFor({ state: 'attached', timeout: 5_000 });
    expect(await lan.textContent()).toBe(`${ADDRESSES.userLan} (${world.topology.userDevice})`);
    const publicOption = select.locator('option[disabled]');
    expect(await publicOption.allTextContents()).toEqual([en.notPrivate(ADDRESSES.user, world.topology.userDevice)]);
    await sharing.getByRole('checkbox', { name: new RegExp(`^${en.enable}`) }).check();
    await select.selectOption(ADDRESSES.userLan);
    await dialog.getByRole('button', { name: en.save, exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await savedSettings()).sharing).toEqual({ enabled: true, address: ADDRESSES.userLan });

    // The TV without the credentials, and with wrong ones: SOCKS5 refuses (curl 97), and each is counted.
    const refusedSocks = [`socks5h://${ADDRESSES.userLan}:${SOCKS_PORT}`, `socks5h://someone:wrong@${ADDRESSES.userLan}:${SOCKS_PORT}`];
    expect(await waitUntil(async () => (await fromDevice(['-x', refusedSocks[0]!, TARGET_URL])).code === 97, 20_000, 500)).toBe(true);
    expect((await fromDevice(['-x', refusedSocks[1]!, TARGET_URL])).code).toBe(97);
    const credentials = JSON.parse(await readFile(join(dataDir, SHARING_CREDENTIALS_FILE), 'utf8')) as { username: string; password: string };
    expect((await stat(join(dataDir, SHARING_CREDENTIALS_FILE))).mode & 0o777).toBe(0o600);
    // The first 97 above was the first login the proxy heard (earlier tries found nothing listening yet).
    const refusedCount = 2;

    for (const [i, language] of LANGUAGES.entries()) {
      const words = LOCALES[language];
      if (i > 0) await chooseLanguage(LANGUAGES[i - 1]!, language);
      await page.setViewportSize({ width: 1280, height: 900 });
      dialog = await openSettings(language);
      await dialog.getByRole('tab', { name: words.page, exact: true }).click();
      const panel = dialog.locator('#settings-page-sharing');
      expect(await panel.evaluate((element) => getComputedStyle(element).direction)).toBe(language === 'fa' || language === 'ar' ? 'rtl' : 'ltr');
      expect(await panel.getByRole('note').textContent()).toBe(words.warning);
      expect(await panel.locator('select').inputValue()).toBe(ADDRESSES.userLan);
      expect(await panel.locator('select option[disabled]').allTextContents()).toEqual([words.notPrivate(ADDRESSES.user, world.topology.userDevice)]);
      // The hint's ranges and addresses read left to right in every language.
      for (const token of ['172.16–31.x', 'fc00::/7', '127.0.0.1']) {
        const read = await page.evaluate(readsLeftToRight, { selector: '#settings-page-sharing .field > .hint', token });
        expect(read, `${language}: ${token}`).toMatchObject({ found: true, inOrder: true });
      }
      // Where the household reaches it, and the refusals in the language's own digits.
      const status = panel.locator('.sharing-status[data-listening="yes"]');
      await status.waitFor({ timeout: 10_000 });
      expect(await status.textContent()).toBe(`${words.listening} http://${ADDRESSES.userLan}:${HTTP_PORT} · socks5://${ADDRESSES.userLan}:${SOCKS_PORT}`);
      const count = await page.evaluate(([lang, n]) => new Intl.NumberFormat(lang as string).format(n as number), [language, refusedCount] as const);
      await expect.poll(async () => (await panel.locator('.sharing-failures').textContent())?.startsWith(`${words.failedLogins}${count}`), { timeout: 10_000 }).toBe(true);
      if (language === 'fa') expect(count).toMatch(/^[۰-۹]+$/);

      // Nothing secret until Show; then the engine's own credentials, and a QR code of the SOCKS5 link.
      expect(await panel.textContent()).not.toContain(credentials.password);
      await panel.getByRole('button', { name: words.reveal, exact: true }).click();
      const shown = panel.locator('.sharing-credentials');
      await shown.waitFor();
      expect((await shown.locator('dt').allTextContents()).slice(0, 2)).toEqual([words.username, words.password]);
      expect(await shown.locator('dd').allTextContents()).toEqual([credentials.username, credentials.password, `${ADDRESSES.userLan}:${HTTP_PORT}`, `${ADDRESSES.userLan}:${SOCKS_PORT}`]);
      const qr = panel.getByRole('img', { name: words.qr });
      await qr.scrollIntoViewIfNeeded();
      const pixels = await pixelsOf(browser, await qr.screenshot());
      expect(jsQR(pixels.data, pixels.width, pixels.height)?.data).toBe(`socks5://${credentials.username}:${credentials.password}@${ADDRESSES.userLan}:${SOCKS_PORT}#${encodeURIComponent(words.qrName)}`);

      for (const viewport of [{ width: 1280, height: 900 }, { width: 900, height: 600 }]) {
        await page.setViewportSize(viewport);
        await settle();
        const { problems, shown: atoms } = await page.evaluate(measureBoxes, { root: '#settings-page-sharing', atoms: ATOMS });
        expect(problems, `${language} ${viewport.width}×${viewport.height}`).toEqual([]);
        expect(atoms).toBeGreaterThan(12);
      }
      await page.setViewportSize({ width: 1280, height: 900 });
      await screenshot(dialog, `settings-sharing-${language}`);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    }

    // With the credentials shown, the TV reaches the site through the server, over SOCKS5 and HTTP.
    expect(await fromDevice(['-x', `socks5h://${credentials.username}:${credentials.password}@${ADDRESSES.userLan}:${SOCKS_PORT}`, TARGET_URL])).toEqual({ out: ADDRESSES.exit, code: 0 });
    expect(await fromDevice(['-x', `http://${credentials.username}:${credentials.password}@${ADDRESSES.userLan}:${HTTP_PORT}`, TARGET_URL])).toEqual({ out: ADDRESSES.exit, code: 0 });
    await chooseLanguage('zh', 'en');
    expect(app.errors).toEqual([]);
    expect(app.refused).toEqual([]);
  }, 240_000);

  it('after the app is killed with the kill switch on, says so in every language and turns it off with one button', async () => {
    const en = LOCALES.en;
    const direct = () => world.inUser(['curl', '-s', '--noproxy', '*', '-m', '1', TARGET_URL], 5_000).catch(() => null);
    expect(await direct()).toBe(ADDRESSES.user);
    const dialog = await openSettings('en');
    await dialog.locator('#settings-tab-connection').click();
    await dialog.getByRole('checkbox', { name: new RegExp(`^${en.killSwitch}`) }).check();
    await dialog.getByRole('button', { name: en.save, exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await savedSettings()).killSwitch).toBe(true);
    expect(await waitUntil(async () => (await ourTables(world)).includes('steadfast_killswitch'), 10_000, 100)).toBe(true);
    expect(await direct()).toBeNull();

    // The app dies without a word; the kill switch stays, by design.
    const deadHost = new URL(await host!.url).host;
    host!.child.kill('SIGKILL');
    await waitUntil(() => host!.child.signalCode !== null, 5_000);
    // Its cores go with it (they watch the program that started them); only the kill switch stays.
    expect(await waitUntil(() => processesMentioning(join(dataDir, 'runtime')).length === 0, 5_000)).toBe(true);
    expect(await ourTables(world)).toEqual(['steadfast_killswitch']);
    expect(await direct()).toBeNull();

    host = startHost([]);
    await moveTo(app, await host.url);
    for (const [i, language] of LANGUAGES.entries()) {
      const words = LOCALES[language];
      if (i > 0) await chooseLanguage(LANGUAGES[i - 1]!, language);
      const problem = page.locator('.problem').filter({ has: page.getByRole('button', { name: words.turnOff, exact: true }) });
      await problem.waitFor({ timeout: 15_000 });
      expect(await problem.locator('.problem-message').textContent()).toMatch(words.left);
      await screenshot(problem, `kill-switch-left-${language}`);
      await settle();
      const { problems } = await page.evaluate(measureBoxes, { root: '.problem:has(.problem-action)', atoms: ['.problem-label', '.problem-message', 'button'] });
      expect(problems, language).toEqual([]);
    }
    expect(await direct()).toBeNull();

    // Turned off from the message (in the last language shown): the engine's settings, the rules, direct traffic.
    const last = LOCALES[LANGUAGES[LANGUAGES.length - 1]!];
    await page.getByRole('button', { name: last.turnOff, exact: true }).click();
    const pressedAt = Date.now();
    expect(await waitUntil(async () => (await direct()) === ADDRESSES.user, 5_000, 50)).toBe(true);
    console.log(JSON.stringify({ turn_off_to_direct_ms: Date.now() - pressedAt }));
    expect((await savedSettings()).killSwitch).toBe(false);
    expect(await ourTables(world)).toEqual([]);
    await page.getByRole('button', { name: last.turnOff, exact: true }).waitFor({ state: 'detached', timeout: 5_000 });
    // The page tried to reach the killed host again until it was moved to the new one: those failures, and nothing else.
    expect(app.errors.filter((error) => !error.includes(`WebSocket connection to 'ws://${deadHost}/ws?`))).toEqual([]);
    expect(app.refused).toEqual([]);
  }, 180_000);
});
