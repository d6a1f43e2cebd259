/**
 * The UI with 5,000 servers, measured in Debian's Chromium with the page's own performance API:
 * - `first_render`: navigation start → the first frame that shows server rows (a MutationObserver
 *   sees the first `listitem`, the next requestAnimationFrame is that frame, a message posted from
 *   it runs once the frame is done). Also split: the snapshot's arrival over the WebSocket, and the
 *   renderer's own part from there (`list_after_snapshot`).
 * - `frames` while the ping results of all 5,000 servers arrive: every requestAnimationFrame
 *   timestamp during a Test all (the interval between two frames is what a user sees; 16.7 ms is
 *   one frame at 60 Hz, so a frame "over budget" is one that took longer than that and delayed the
 *   next), and per burst (one `statuses` message): `burst_task` = the app's handling of it (parse,
 *   store update and React's render, to the end of the microtasks it queued), `burst_until_idle` =
 *   from its arrival until a message posted then is served (its task plus whatever was queued,
 *   e.g. the frame's style, layout and paint).
 *
 * The world is the real one: the lab (12 real v2ray servers behind relays), the real engine with a
 * pasted text subscription of 5,000 lab-shaped share links (each lab server listed ~417 times under
 * its own name, so every one of the 5,000 answers), the real headless host and the built UI. The
 * ping updates are the monitor's own results, batched by its publisher into bursts (500 ms window)
 * and sent over the real WebSocket; their rate is what the engine achieves on this machine, with
 * the engine, both v2ray cores and Chromium sharing its cores.
 *
 * `--compare DIR` (a renderer build, e.g. another checkout's dist/renderer) serves that build from a
 * second host on the same engine and alternates the first-render loads between the two (A B B A …,
 * `--runs` each), so both meet the same engine, lab and load; it reports each side's figures and
 * the ratio of their medians. On this 2-CPU machine separate runs of the bench differ by ±60 ms on
 * their own, more than most changes to the first render.
 *
 *   npm run bench -- ui [--servers 5000] [--runs 5] [--workers 32] [--timeout-s 400] [--bursts 0] [--compare DIR]
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { createEngine, type Engine } from '../../app/engine';
import { Logger } from '../../app/log/logger';
import { freePorts } from '../../app/tunnel/ports';
import { type HeadlessHost, startHeadlessHost } from '../../main/headless/host';
import { resultToWire } from '../../shared/ipc/wire';
import { ensureRendererBuilt, RENDERER_DIST } from '../../main/headless/renderer-build';
import { type InProcessLab, startLab } from '../lab';
import { type Benchmark, median, option, quantile, round } from './harness';

/**
 * The page may reach nothing but the host: every request to anywhere but loopback goes to a proxy
 * that is not there (port 9, discard), and the app's own policy (CSP) keeps it to its origin on
 * loopback. Not Playwright's request interception, as before: that passed each of the page's
 * requests through this process, the engine's, and added 100–190 ms to the first render measured
 * (1,120–1,228 → 929–1,037 ms, alternating, with a parse benchmark beside it) that no user's window has.
 */
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--proxy-server=http://127.0.0.1:9'];
/** One frame at 60 Hz (headless Chromium's begin-frame rate). */
const VSYNC_MS = 1000 / 60;

/**
 * In the page before the app: WebSocket messages observed (snapshot arrival, status entries and
 * their main-thread time), the first frame with rows, and requestAnimationFrame timestamps on demand.
 */
const INSTRUMENT = `
(() => {
  const b = (window.__bench = {
    socketOpenAt: null, snapshotAt: null, snapshotBytes: 0, firstRowAt: null, firstFrameAt: null, firstRenderDoneAt: null,
    recording: false, frames: [], bursts: [], pingUpdates: 0, statusEntries: 0, lastTested: new Map(), longTasks: [],
  });
  const afterTask = (callback) => { const channel = new MessageChannel(); channel.port1.onmessage = () => callback(performance.now()); channel.port2.postMessage(null); };
  // A status on the wire carries only what differs from an untested one (shared/ipc/wire.ts).
  const ENTRY = /"serverId":"([^"]*)"(?:,"delayMs":[0-9.]+)?(?:,"testedAt":([0-9]+))?/g;
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('open', () => { if (b.socketOpenAt === null) b.socketOpenAt = performance.now(); });
      // Registered before the app's onmessage, so it runs first: the burst's time starts here.
      this.addEventListener('message', (event) => {
        const at = performance.now();
        const data = typeof event.data === 'string' ? event.data : '';
        // The snapshot comes pushed on connect (an event), or as the answer to a getSnapshot.
        if (b.snapshotAt === null && (data.startsWith('{"kind":"event","event":"snapshot"') || data.startsWith('{"kind":"result"')) && data.includes('"subscriptions":[')) {
          b.snapshotAt = at;
          b.snapshotBytes = data.length;
        }
        if (!b.recording || data.indexOf('"event":"statuses"') < 0 || data.indexOf('"event":"statuses"') > 40) return;
        let entries = 0;
        let pings = 0;
        for (const match of data.matchAll(ENTRY)) {
          entries += 1;
          if (match[2] !== undefined && b.lastTested.get(match[1]) !== match[2]) {
            b.lastTested.set(match[1], match[2]);
            pings += 1;
          }
        }
        b.statusEntries += entries;
        b.pingUpdates += pings;
        const burst = { at, entries, pings, taskMs: null, busyMs: null };
        b.bursts.push(burst);
        this.__pending = burst;
        afterTask((done) => (burst.busyMs = done - at));
      });
      // The app's own handler, timed to the end of the microtasks it queues (React's render of an
      // update from outside a React event runs in one).
      const slot = Object.getOwnPropertyDescriptor(Native.prototype, 'onmessage');
      let handler = null;
      Object.defineProperty(this, 'onmessage', {
        get: () => handler,
        set: (next) => {
          handler = next;
          slot.set.call(this, next === null ? null : (event) => {
            try { return next.call(this, event); } finally {
              const burst = this.__pending;
              this.__pending = null;
              if (burst) queueMicrotask(() => (burst.taskMs = performance.now() - burst.at));
            }
          });
        },
      });
    }
  };
  new MutationObserver((_records, observer) => {
    if (b.firstRowAt !== null || !document.querySelector('[role="listitem"][data-server-id]')) return;
    b.firstRowAt = performance.now();
    observer.disconnect();
    requestAnimationFrame((frameAt) => { b.firstFrameAt = frameAt; afterTask((done) => (b.firstRenderDoneAt = done)); });
  }).observe(document, { childList: true, subtree: true });
  try {
    new PerformanceObserver((list) => { for (const entry of list.getEntries()) if (b.recording) b.longTasks.push(entry.duration); }).observe({ type: 'longtask', buffered: false });
  } catch {}
  const tick = (at) => { if (b.recording) b.frames.push(at); requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
})();
`;

/** What INSTRUMENT keeps in the page. */
interface BenchState {
  socketOpenAt: number;
  snapshotAt: number;
  snapshotBytes: number;
  firstRenderDoneAt: number | null;
  recording: boolean;
  frames: number[];
  bursts: { entries: number; pings: number; taskMs: number | null; busyMs: number | null }[];
  longTasks: number[];
  pingUpdates: number;
  statusEntries: number;
}

// Functions, not strings, go into the page: the app's CSP forbids eval (as it should).
const rendered = () => (window as unknown as { __bench: BenchState }).__bench.firstRenderDoneAt !== null;

export interface FirstRender {
  first_render_ms: number;
  /** The page's own code and styles as fetched before it could render (the fonts come later, by unicode-range). */
  page_js_bytes: number;
  page_css_bytes: number;
  dom_content_loaded_ms: number;
  socket_open_ms: number;
  snapshot_ms: number;
  list_after_snapshot_ms: number;
  snapshot_bytes: number;
  rows_in_dom: number;
}

/** `count` share links of the lab's servers, in turn, each under its own name. */
export function benchLinks(lab: InProcessLab, count: number): string[] {
  const links: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const server = lab.info.servers[i % lab.info.servers.length]!;
    const name = `Bench ${i + 1} · ${server.id}`;
    if (server.shareLink.startsWith('vmess://')) {
      const body = JSON.parse(Buffer.from(server.shareLink.slice('vmess://'.length), 'base64').toString('utf8')) as Record<string, unknown>;
      links.push(`vmess://${Buffer.from(JSON.stringify({ ...body, ps: name }), 'utf8').toString('base64')}`);
    } else {
      links.push(`${server.shareLink.replace(/#.*$/, '')}#${encodeURIComponent(name)}`);
    }
  }
  return links;
}

async function openInstrumented(browser: Browser, url: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US', deviceScaleFactor: 1 });
  // tsx keeps function names with a `__name` helper the page lacks.
  await context.addInitScript('globalThis.__name = globalThis.__name || ((f) => f);');
  await context.addInitScript(INSTRUMENT);
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

export async function measureFirstRender(browser: Browser, url: string): Promise<FirstRender> {
  const page = await openInstrumented(browser, url);
  try {
    await page.waitForFunction(rendered, undefined, { timeout: 60_000 });
    const b = await page.evaluate(() => {
      const { socketOpenAt, snapshotAt, snapshotBytes, firstRenderDoneAt } = (window as unknown as { __bench: BenchState }).__bench;
      const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
      const fetched = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter((entry) => entry.startTime < (firstRenderDoneAt as number));
      const bytesOf = (suffix: string) => fetched.filter((entry) => new URL(entry.name).pathname.endsWith(suffix)).reduce((sum, entry) => sum + entry.decodedBodySize, 0);
      return {
        socketOpenAt,
        snapshotAt,
        snapshotBytes,
        firstRenderDoneAt: firstRenderDoneAt as number,
        domContentLoaded: navigation?.domContentLoadedEventEnd ?? Number.NaN,
        jsBytes: bytesOf('.js'),
        cssBytes: bytesOf('.css'),
      };
    });
    return {
      first_render_ms: b.firstRenderDoneAt,
      page_js_bytes: b.jsBytes,
      page_css_bytes: b.cssBytes,
      dom_content_loaded_ms: b.domContentLoaded,
      socket_open_ms: b.socketOpenAt,
      snapshot_ms: b.snapshotAt,
      list_after_snapshot_ms: b.firstRenderDoneAt - b.snapshotAt,
      snapshot_bytes: b.snapshotBytes,
      rows_in_dom: await page.locator('[role="listitem"][data-server-id]').count(),
    };
  } finally {
    await page.context().close();
  }
}

export function firstRenderFigures(prefix: string, runs: FirstRender[]): Record<string, number> {
  const pick = (key: keyof FirstRender) => runs.map((r) => r[key]);
  return {
    [`${prefix}_median_ms`]: round(median(pick('first_render_ms'))),
    [`${prefix}_p95_ms`]: round(quantile(pick('first_render_ms'), 0.95)),
    [`${prefix}_max_ms`]: round(Math.max(...pick('first_render_ms'))),
    [`${prefix}_dom_content_loaded_median_ms`]: round(median(pick('dom_content_loaded_ms'))),
    [`${prefix}_socket_open_median_ms`]: round(median(pick('socket_open_ms'))),
    [`${prefix}_snapshot_arrived_median_ms`]: round(median(pick('snapshot_ms'))),
    [`${prefix}_list_after_snapshot_median_ms`]: round(median(pick('list_after_snapshot_ms'))),
    [`${prefix}_list_after_snapshot_p95_ms`]: round(quantile(pick('list_after_snapshot_ms'), 0.95)),
    [`${prefix}_snapshot_kib`]: round(median(pick('snapshot_bytes')) / 1024),
    [`${prefix}_page_js_kib`]: round(median(pick('page_js_bytes')) / 1024),
    [`${prefix}_page_css_kib`]: round(median(pick('page_css_bytes')) / 1024),
    [`${prefix}_rows_in_dom`]: median(pick('rows_in_dom')),
  };
}

/**
 * The engine's and the host's part of the first snapshot, in this process: getSnapshot, then the
 * WebSocket's encoding and the JSON text the host sends (main/headless/host.ts does the same).
 */
async function measureSnapshotMaking(engine: Engine, runs: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const startedAt = performance.now();
    const snapshot = await engine.getSnapshot({});
    JSON.stringify({ kind: 'result', id: 1, ok: true, value: resultToWire('getSnapshot', snapshot) });
    times.push(performance.now() - startedAt);
  }
  return times;
}

/** Test all from the UI, and the page's frames until every server has a new result. */
async function measureBursts(browser: Browser, engine: Engine, url: string, servers: number, timeoutMs: number): Promise<Record<string, number>> {
  const page = await openInstrumented(browser, url);
  try {
    await page.waitForFunction(rendered, undefined, { timeout: 60_000 });
    await page.waitForTimeout(500);
    await page.evaluate(() => {
      (window as unknown as { __bench: BenchState }).__bench.recording = true;
    });
    const startedAt = Date.now();
    await page.getByRole('button', { name: 'Test all', exact: true }).click();
    let pings = 0;
    while (Date.now() - startedAt < timeoutMs) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      pings = await page.evaluate(() => (window as unknown as { __bench: BenchState }).__bench.pingUpdates);
      const progress = (await engine.getSnapshot({})).testProgress;
      if (pings >= servers || (!progress.running && Date.now() - startedAt > 5000)) break;
    }
    await page.waitForTimeout(1000); // the last burst's frames
    const b = await page.evaluate(() => {
      const { frames, bursts, longTasks, pingUpdates, statusEntries } = (window as unknown as { __bench: BenchState }).__bench;
      return { frames, bursts, longTasks, pingUpdates, statusEntries };
    });
    const seconds = (Date.now() - startedAt) / 1000;
    const intervals = b.frames.slice(1).map((at, i) => at - (b.frames[i] as number));
    const tasks = b.bursts.map((burst) => burst.taskMs).filter((ms): ms is number => ms !== null);
    const busy = b.bursts.map((burst) => burst.busyMs).filter((ms): ms is number => ms !== null);
    const sizes = b.bursts.map((burst) => burst.entries);
    return {
      ping_updates: b.pingUpdates,
      status_entries: b.statusEntries,
      bursts: b.bursts.length,
      burst_entries_median: median(sizes),
      burst_entries_max: Math.max(0, ...sizes),
      duration_s: round(seconds),
      frames: intervals.length,
      frame_median_ms: round(median(intervals)),
      frame_p95_ms: round(quantile(intervals, 0.95)),
      frame_p99_ms: round(quantile(intervals, 0.99)),
      frame_max_ms: round(Math.max(0, ...intervals)),
      frames_over_one_vsync: intervals.filter((ms) => ms > VSYNC_MS * 1.5).length,
      burst_task_median_ms: round(median(tasks)),
      burst_task_p95_ms: round(quantile(tasks, 0.95)),
      burst_task_max_ms: round(Math.max(0, ...tasks)),
      burst_until_idle_median_ms: round(median(busy)),
      burst_until_idle_p95_ms: round(quantile(busy, 0.95)),
      long_tasks: b.longTasks.length,
      long_task_max_ms: round(Math.max(0, ...b.longTasks)),
    };
  } finally {
    await page.context().close();
  }
}

/**
 * This checkout's build against the one at `otherDir`, on the same engine: a second host serves
 * the other build, and the loads alternate A B B A so that neither side meets the machine's
 * quieter or busier moments more often.
 */
async function compareFirstRenders(browser: Browser, engine: Engine, host: HeadlessHost, otherDir: string, servers: number, runs: number, logger: Logger): Promise<Record<string, unknown>> {
  const other = await startHeadlessHost({ service: engine, rendererDir: otherDir, port: 0, logger });
  try {
    const sides = [
      { url: host.url, runs: [] as FirstRender[] },
      { url: other.url, runs: [] as FirstRender[] },
    ];
    for (let i = 0; i < runs; i += 1) {
      for (const side of i % 2 === 0 ? sides : [...sides].reverse()) side.runs.push(await measureFirstRender(browser, side.url));
      process.stderr.write(`pair ${i + 1}/${runs}: this ${round(sides[0]!.runs[i]!.first_render_ms)} ms, other ${round(sides[1]!.runs[i]!.first_render_ms)} ms\n`);
    }
    const [here, there] = sides.map((side) => median(side.runs.map((r) => r.first_render_ms))) as [number, number];
    return {
      world: 'real engine + headless host + lab (12 v2ray servers listed as 5,000 links); first render, this build against --compare, loads alternating',
      servers,
      runs,
      compared_with: otherDir,
      ...firstRenderFigures('this_first_render', sides[0]!.runs),
      ...firstRenderFigures('other_first_render', sides[1]!.runs),
      first_render_median_ratio_this_to_other: round(here / there, 3),
      first_render_pair_difference_median_ms: round(median(sides[0]!.runs.map((r, i) => r.first_render_ms - sides[1]!.runs[i]!.first_render_ms))),
      target_first_render_ms: 300,
    };
  } finally {
    await other.close();
  }
}

export const uiBenchmark: Benchmark = {
  name: 'ui',
  description: 'the UI with 5,000 servers (real engine, host and lab): first render of the list, frame times while 5,000 ping results arrive',
  async run(args) {
    const servers = option(args, 'servers', 5000);
    const runs = option(args, 'runs', 5);
    const workers = option(args, 'workers', 32);
    const timeoutMs = option(args, 'timeout-s', 400) * 1000;
    /** 0: the first render only (no Test all, no first render with results). */
    const withBursts = option(args, 'bursts', 1) !== 0;
    const compareDir = option(args, 'compare', '');
    if (compareDir !== '' && !existsSync(join(compareDir, 'index.html'))) throw new Error(`--compare ${compareDir}: no renderer build there (no index.html)`);
    const logger = new Logger({ level: 'warning', sinks: [(record, line) => (record.level === 'error' ? process.stderr.write(`${line}\n`) : undefined)] });
    await ensureRendererBuilt((line) => process.stderr.write(`${line}\n`));
    const lab = await startLab({ servers: 12, subscriptions: 1, seed: 1, latency: [5, 30] });
    const dataDir = mkdtempSync(join(tmpdir(), 'steadfast-bench-ui-'));
    let engine: Engine | null = null;
    let host: HeadlessHost | null = null;
    let browser: Browser | null = null;
    try {
      const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
      engine = await createEngine({
        dataDir,
        logger,
        resourcesDir: fileURLToPath(new URL('../../resources', import.meta.url)),
        watchNetwork: false,
        settingsOverrides: { httpPort, socksPort, language: 'en', monitor: { urls: [lab.info.target], ipInfoUrls: lab.info.ipinfoUrls, transferTestUrl: `${lab.info.bytes}/{bytes}`, workers } },
      });
      const subscription = await engine.addSubscription({ text: benchLinks(lab, servers).join('\n'), name: `Bench ${servers}` });
      if (subscription.servers.length !== servers) throw new Error(`the subscription has ${subscription.servers.length} servers, not ${servers}`);
      host = await startHeadlessHost({ service: engine, rendererDir: RENDERER_DIST, port: 0, logger });
      browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });

      if (compareDir !== '') return await compareFirstRenders(browser, engine, host, compareDir, servers, runs, logger);
      const untested: FirstRender[] = [];
      for (let i = 0; i < runs; i += 1) {
        untested.push(await measureFirstRender(browser, host.url));
        process.stderr.write(`first render ${i + 1}/${runs}: ${round(untested[i]!.first_render_ms)} ms (engine heap ${round(process.memoryUsage().heapUsed / 2 ** 20)} MiB)\n`);
      }
      const makingUntested = await measureSnapshotMaking(engine, runs);
      const firstOnly = {
        world: 'real engine + headless host + lab (12 v2ray servers listed as 5,000 links); first render only (--bursts 0)',
        servers,
        runs,
        ...firstRenderFigures('first_render', untested),
        first_render_engine_snapshot_median_ms: round(median(makingUntested)),
        target_first_render_ms: 300,
      };
      if (!withBursts) return firstOnly;
      const bursts = await measureBursts(browser, engine, host.url, servers, timeoutMs);
      const tested: FirstRender[] = [];
      for (let i = 0; i < runs; i += 1) tested.push(await measureFirstRender(browser, host.url));
      const makingTested = await measureSnapshotMaking(engine, runs);

      return {
        world: 'real engine + headless host + lab (12 v2ray servers listed as 5,000 links); ping results from the monitor',
        servers,
        runs,
        monitor_workers: workers,
        ...firstRenderFigures('first_render', untested),
        first_render_engine_snapshot_median_ms: round(median(makingUntested)),
        ...firstRenderFigures('first_render_with_results', tested),
        first_render_with_results_engine_snapshot_median_ms: round(median(makingTested)),
        ...bursts,
        target_first_render_ms: 300,
        target_frame_p95_ms: 16,
        vsync_ms: round(VSYNC_MS, 2),
      };
    } finally {
      await browser?.close();
      await host?.close();
      await engine?.stop();
      await lab.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
