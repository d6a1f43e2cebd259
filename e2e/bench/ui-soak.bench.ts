/**
 * `npm run bench -- ui-soak [--minutes 60] [--servers 5000]`: the window left open with 5,000
 * servers while the monitor's results arrive at its own rate (the real engine, host and lab, as in
 * `npm run bench -- ui`). Once a minute, after a garbage collection, the page's JS heap, DOM nodes
 * and event listeners are read through Chromium's DevTools protocol (`Performance.getMetrics`).
 * The first third is warm-up; over the rest (the last 40 minutes of an hour) a least-squares line
 * gives each figure's slope and its growth from the start to the end of that window, in percent.
 * The goal: heap growth ≤ 5 % after warm-up, DOM nodes flat. Measures, never asserts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { createEngine, type Engine } from '../../app/engine';
import { Logger } from '../../app/log/logger';
import { freePorts } from '../../app/tunnel/ports';
import { type HeadlessHost, startHeadlessHost } from '../../main/headless/host';
import { ensureRendererBuilt, RENDERER_DIST } from '../../main/headless/renderer-build';
import { startLab } from '../lab';
import { type Benchmark, option, round } from './harness';
import { benchLinks } from './ui.bench';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
const MINUTE_MS = 60_000;

interface Sample {
  minute: number;
  heap_mib: number;
  dom_nodes: number;
  listeners: number;
  statuses_seen: number;
}

/** The least-squares line through (x, y): its slope and its values at the first and last x. */
export function trend(points: readonly { x: number; y: number }[]): { slope: number; start: number; end: number } {
  const n = points.length;
  if (n === 0) return { slope: 0, start: 0, end: 0 };
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  const sxx = points.reduce((sum, p) => sum + (p.x - meanX) ** 2, 0);
  const slope = sxx === 0 ? 0 : points.reduce((sum, p) => sum + (p.x - meanX) * (p.y - meanY), 0) / sxx;
  const at = (x: number) => meanY + slope * (x - meanX);
  return { slope, start: at(points[0]!.x), end: at(points[n - 1]!.x) };
}

/** The samples after warm-up: the last 40 minutes of an hour, the last two thirds of a shorter run. */
export function afterWarmUp<T extends { minute: number }>(samples: readonly T[], minutes: number): T[] {
  const window = minutes >= 60 ? 40 : Math.ceil((minutes * 2) / 3);
  return samples.filter((s) => s.minute > minutes - window);
}

function growth(samples: readonly Sample[], key: 'heap_mib' | 'dom_nodes' | 'listeners'): { per_minute: number; percent: number } {
  const line = trend(samples.map((s) => ({ x: s.minute, y: s[key] })));
  return { per_minute: round(line.slope, 3), percent: line.start === 0 ? 0 : round(((line.end - line.start) / line.start) * 100, 2) };
}

export const uiSoakBenchmark: Benchmark = {
  name: 'ui-soak',
  description: 'the window with 5,000 servers left open for an hour: JS heap, DOM nodes and listeners each minute, their growth after warm-up',
  async run(args) {
    const minutes = Math.max(3, option(args, 'minutes', 60));
    const servers = option(args, 'servers', 5000);
    const logger = new Logger({ level: 'warning', sinks: [(record, line) => (record.level === 'error' ? process.stderr.write(`${line}\n`) : undefined)] });
    await ensureRendererBuilt((line) => process.stderr.write(`${line}\n`));
    const lab = await startLab({ servers: 12, subscriptions: 1, seed: 1, latency: [5, 30] });
    const dataDir = mkdtempSync(join(tmpdir(), 'steadfast-bench-ui-soak-'));
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
        settingsOverrides: { httpPort, socksPort, language: 'en', monitor: { urls: [lab.info.target], ipInfoUrls: lab.info.ipinfoUrls, transferTestUrl: `${lab.info.bytes}/{bytes}` } },
      });
      await engine.addSubscription({ text: benchLinks(lab, servers).join('\n'), name: `Soak ${servers}` });
      let statusesSeen = 0;
      const unsubscribe = engine.on('statuses', (list) => (statusesSeen += list.length));
      host = await startHeadlessHost({ service: engine, rendererDir: RENDERER_DIST, port: 0, logger });
      browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
      const origin = new URL(host.url).host;
      // The page may reach nothing but the host.
      await context.route('**/*', (route) => (new URL(route.request().url()).host === origin ? route.continue() : route.abort('blockedbyclient')));
      const page = await context.newPage();
      await page.goto(host.url);
      await page.locator('[role="listitem"][data-server-id]').first().waitFor({ timeout: 120_000 });
      const cdp = await context.newCDPSession(page);
      await cdp.send('Performance.enable');

      const samples: Sample[] = [];
      const startedAt = Date.now();
      for (let minute = 1; minute <= minutes; minute += 1) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, startedAt + minute * MINUTE_MS - Date.now())));
        await cdp.send('HeapProfiler.collectGarbage');
        const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
        const metric = (name: string) => metrics.find((m) => m.name === name)?.value ?? Number.NaN;
        samples.push({ minute, heap_mib: round(metric('JSHeapUsedSize') / 2 ** 20, 2), dom_nodes: metric('Nodes'), listeners: metric('JSEventListeners'), statuses_seen: statusesSeen });
      }
      unsubscribe();

      const settled = afterWarmUp(samples, minutes);
      const heap = growth(settled, 'heap_mib');
      const nodes = growth(settled, 'dom_nodes');
      const listeners = growth(settled, 'listeners');
      return {
        world: 'real engine + headless host + lab (12 v2ray servers listed as 5,000 links); results at the monitor’s own rate',
        servers,
        minutes,
        window_minutes: settled.length,
        statuses_delivered: statusesSeen,
        heap_start_mib: settled[0]?.heap_mib ?? null,
        heap_end_mib: settled.at(-1)?.heap_mib ?? null,
        heap_slope_mib_per_minute: heap.per_minute,
        heap_growth_percent: heap.percent,
        dom_nodes_start: settled[0]?.dom_nodes ?? null,
        dom_nodes_end: settled.at(-1)?.dom_nodes ?? null,
        dom_nodes_slope_per_minute: nodes.per_minute,
        dom_nodes_growth_percent: nodes.percent,
        listeners_slope_per_minute: listeners.per_minute,
        listeners_growth_percent: listeners.percent,
        target_heap_growth_percent: 5,
        samples,
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
