/**
 * The app's files when things go wrong (issue 9, "Files"):
 * - settings, subscriptions, the monitor's result cache and Auto's state truncated, garbage or
 *   empty at start → the engine starts, uses the last good copy (`.bak`), sets the bad file aside
 *   (never deletes it) and tells the user in a sentence;
 * - writes are atomic: a process killed with -9 in the middle of saving leaves a file that parses;
 * - unwritable: a file where the data folder should be, or a disk that fills up while the app
 *   runs → the app keeps running, what it holds in memory stays, and the failure is reported.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../app/engine';
import { memoryLogger } from '../../app/log/logger';
import { CACHE_FILE_NAME } from '../../app/monitor/cache';
import { subscriptionsFile } from '../../app/subscriptions/store';
import { coreProcesses } from './inventory';
import { waitFor } from '../../app/testing/wait';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);
const root = mkdtempSync(join(tmpdir(), 'steadfast-files-'));
let template = '';
/** A local test URL (answers 204), so the monitor's direct check finds a network and records its tests. */
const testSite = createServer((_req, res) => res.writeHead(204).end());
let testUrl = '';

/** Eight servers in two pasted subscriptions (nothing to fetch; the addresses need not answer). */
const links = (tag: string, first: number) =>
  Array.from({ length: 4 }, (_, i) => `vless://${String(first + i).padStart(8, '0')}-0000-4000-8000-00000000000${i}@127.0.0.1:${20_000 + first + i}?type=tcp&security=none#${tag}-${i + 1}`).join('\n');

async function engineOn(dataDir: string, log = memoryLogger('info')): Promise<{ engine: Engine; log: ReturnType<typeof memoryLogger> }> {
  const engine = await createEngine({ dataDir, logger: log.logger, watchNetwork: false, settingsOverrides: undefined });
  return { engine, log };
}

async function stopped(engine: Engine, dataDir: string): Promise<void> {
  await engine.stop();
  await waitFor('no core left', () => coreProcesses(join(dataDir, 'runtime')).cores.length === 0, 10_000);
}

/**
 * A data folder as a user's would be after a few sessions: every file written at least twice, so
 * each has a `.bak` holding the same facts the tests look for.
 */
async function buildTemplate(dir: string): Promise<void> {
  mkdirSync(dir, { mode: 0o700 });
  for (let session = 0; session < 2; session++) {
    const { engine } = await engineOn(dir);
    if (session === 0) {
      await engine.setSettings({ language: 'fa', stallThresholdMs: 4000, monitor: { urls: [testUrl], urlTestTimeoutMs: 1000 } });
      await engine.setSettings({ theme: 'dark' });
      const one = await engine.addSubscription({ text: links('one', 10), name: 'One' });
      const two = await engine.addSubscription({ text: links('two', 20), name: 'Two' });
      await engine.reorderSubscriptions({ ids: [one.id, two.id] });
      await engine.setAuto({ subscriptionId: one.id });
      await engine.setExcluded({ subscriptionId: one.id, serverIds: [one.servers[3]!.id, one.servers[2]!.id] });
      await engine.setExcluded({ subscriptionId: one.id, serverIds: [one.servers[3]!.id] });
    }
    // Every server tested (the addresses refuse at once), so the cache holds a result for each.
    const from = Date.now();
    await engine.testAll({});
    await waitFor('every server tested', async () => Object.values((await engine.getSnapshot({})).statuses).every((s) => (s.testedAt ?? 0) >= from), 20_000);
    await stopped(engine, dir);
  }
  for (const name of ['settings.json', 'subscriptions.json', 'auto.json', CACHE_FILE_NAME]) {
    if (!existsSync(join(dir, `${name}.bak`))) throw new Error(`the template has no ${name}.bak`);
  }
}

beforeAll(async () => {
  process.on('unhandledRejection', onRejection);
  await new Promise<void>((resolve) => testSite.listen(0, '127.0.0.1', resolve));
  testUrl = `http://127.0.0.1:${(testSite.address() as { port: number }).port}/generate_204`;
  template = join(root, 'template');
  await buildTemplate(template);
}, 120_000);

afterAll(async () => {
  process.off('unhandledRejection', onRejection);
  await new Promise<void>((resolve) => testSite.close(() => resolve()));
  rmSync(root, { recursive: true, force: true });
});

const DAMAGE = {
  truncated: (bytes: Buffer) => bytes.subarray(0, Math.floor(bytes.length / 2)),
  garbage: () => Buffer.from('\u0000\u00ff{"not": json at all\u0007 <html>captive portal</html>', 'latin1'),
  empty: () => Buffer.alloc(0),
} as const;

const REASON: Record<keyof typeof DAMAGE, string> = {
  truncated: 'not valid JSON',
  garbage: 'not valid JSON',
  empty: 'the file is empty',
};

/** What the last good copy of each file says, checked on the started engine. */
const FILES: { name: string; restored: (engine: Engine) => Promise<void> }[] = [
  {
    name: 'settings.json',
    restored: async (engine) => {
      expect((await engine.getSnapshot({})).settings).toMatchObject({ language: 'fa', stallThresholdMs: 4000 });
    },
  },
  {
    name: 'subscriptions.json',
    restored: async (engine) => {
      const subs = (await engine.getSnapshot({})).subscriptions;
      expect(subs.map((s) => [s.name, s.servers.length])).toEqual([
        ['One', 4],
        ['Two', 4],
      ]);
    },
  },
  {
    name: 'auto.json',
    restored: async (engine) => {
      const s = await engine.getSnapshot({});
      const one = s.subscriptions.find((sub) => sub.name === 'One')!;
      expect(s.auto.subscriptionId).toBe(one.id);
      expect(s.auto.excluded[one.id]).toContain(one.servers[3]!.id);
    },
  },
  {
    name: CACHE_FILE_NAME,
    restored: async (engine) => {
      // Last run's results, shown as from cache until retested.
      const statuses = Object.values((await engine.getSnapshot({})).statuses);
      expect(statuses).toHaveLength(8);
      expect(statuses.every((s) => s.testedAt !== null)).toBe(true);
    },
  },
];

const CASES = FILES.flatMap((file) => (Object.keys(DAMAGE) as (keyof typeof DAMAGE)[]).map((damage) => ({ ...file, damage })));

describe.each(CASES.map((c) => [`${c.name} ${c.damage}`, c] as const))('%s at start', (_label, { name, damage, restored }) => {
  it('starts, uses the last good copy, sets the bad file aside and says so in a sentence', async () => {
    const dir = join(root, `${name}-${damage}`);
    cpSync(template, dir, { recursive: true });
    const path = join(dir, name);
    const bad = DAMAGE[damage](readFileSync(path));
    writeFileSync(path, bad);

    const { engine, log } = await engineOn(dir);
    try {
      const problems = engine.startupProblems();
      const about = problems.filter((p) => p.detail.includes(name));
      expect(about, `startup problems: ${JSON.stringify(problems)}`).toHaveLength(1);
      const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      expect(about[0]!.detail).toMatch(new RegExp(`^${escaped} was unreadable \\(${REASON[damage]}\\); the last good copy was used\\. It was moved to ${escaped}\\.corrupt-[0-9TZ-]+\\.$`));
      expect(log.lines.some((l) => / WARNING /.test(l) && l.includes(name))).toBe(true);
      // The window gets the sentence and what it is about, to say it in the user's language.
      const shown = (await engine.getSnapshot({})).problems.filter((p) => p.detail === about[0]!.detail);
      expect(shown.map((p) => p.topic)).toEqual([{ kind: 'file-unreadable', file: name, recovered: 'backup' }]);
      await restored(engine);
      // Set aside, byte for byte, never deleted.
      const aside = readdirSync(dir).filter((f) => f.startsWith(`${name}.corrupt-`));
      expect(aside).toHaveLength(1);
      expect(readFileSync(join(dir, aside[0]!)).equals(bad)).toBe(true);
      // The app goes on saving.
      await engine.setSettings({ theme: 'light' });
      expect(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8'))).toMatchObject({ theme: 'light' });
    } finally {
      await stopped(engine, dir);
    }
    expect(rejections).toEqual([]);
  });
});

it('both the subscriptions file and its backup damaged: starts with no subscriptions, says so, and keeps the damaged file', async () => {
  const dir = join(root, 'both-damaged');
  cpSync(template, dir, { recursive: true });
  writeFileSync(join(dir, 'subscriptions.json'), '{"version":1,"subscriptions":[{"id":');
  writeFileSync(join(dir, 'subscriptions.json.bak'), '');
  const { engine } = await engineOn(dir);
  try {
    const about = engine.startupProblems().filter((p) => p.detail.includes('subscriptions.json'));
    expect(about.map((p) => p.detail)).toEqual([expect.stringMatching(/was unreadable \(not valid JSON\); starting empty\. It was moved to .+\.corrupt-[0-9TZ-]+\.$/)]);
    expect((await engine.getSnapshot({})).subscriptions).toEqual([]);
    expect(readdirSync(dir).some((f) => f.startsWith('subscriptions.json.corrupt-'))).toBe(true);
  } finally {
    await stopped(engine, dir);
  }
});

describe('writes are atomic', () => {
  it('a process killed with -9 while saving the subscriptions always leaves a file that parses, with every server', async () => {
    const dir = join(root, 'atomic');
    mkdirSync(dir, { mode: 0o700 });
    const servers = 2000;
    const rounds = 12;
    const seen = new Set<string>();
    for (let i = 0; i < rounds; i++) {
      const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'e2e/reliability/write-loop.ts'), dir, String(servers)], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await new Promise<void>((resolve, reject) => {
        child.stdout.once('data', () => resolve());
        child.once('exit', (code) => reject(new Error(`the writer exited (${code}) before its first save`)));
      });
      // Somewhere within the next saves (each ~20–60 ms for ~1 MB): mid-write, mid-rename, or between.
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 200)));
      child.kill('SIGKILL');
      await exited;
      const text = readFileSync(join(dir, 'subscriptions.json'), 'utf8');
      const doc = JSON.parse(text) as { subscriptions: { name: string; servers: unknown[] }[] };
      expect(doc.subscriptions[0]!.servers).toHaveLength(servers);
      seen.add(doc.subscriptions[0]!.name);
      const loaded = await subscriptionsFile(dir).load();
      expect(loaded).toMatchObject({ source: 'file', problem: null });
      expect(statSync(join(dir, 'subscriptions.json')).mode & 0o777).toBe(0o600);
    }
    // The kills landed at different points of the loop, not always before the first rename.
    expect(seen.size).toBeGreaterThan(1);
    const leftovers = readdirSync(dir).filter((f) => f.includes('.tmp-'));
    console.info(`atomic writes: ${rounds} kills, ${seen.size} distinct saved rounds seen, ${leftovers.length} temporary file(s) left by killed writers`);
  }, 120_000);
});

describe('unwritable', () => {
  it('a file where the data folder should be: the engine starts, says why in words, and keeps what the user adds in memory', async () => {
    const path = join(root, 'not-a-folder');
    writeFileSync(path, 'a file, not a folder');
    const { engine, log } = await engineOn(path);
    try {
      const problems = engine.startupProblems();
      expect(problems.length).toBeGreaterThan(0);
      for (const problem of problems) {
        // The folder's random name (mkdtemp: "…-EPNVD7") is not an error code: only the words around it are checked.
        expect(problem.detail.replaceAll(root, '<data>')).not.toMatch(/\bE[A-Z]{3,}\b|\bopen '|\bmkdir '/);
        expect(problem.detail).toMatch(/\.$/);
      }
      await expect(engine.setSettings({ language: 'ru' })).rejects.toThrow(/^could not save .+settings\.json: [^:]+$/);
      expect((await engine.getSnapshot({})).settings.language).not.toBe('ru');
      const added = await engine.addSubscription({ text: links('mem', 40) });
      expect((await engine.getSnapshot({})).subscriptions.map((s) => s.id)).toEqual([added.id]);
      expect(log.lines.some((l) => / ERROR SUBSCRIPTIONS Could not save the subscriptions: could not save .+: [^:]+\. Changes are kept until the app closes\.$/.test(l))).toBe(true);
    } finally {
      await engine.stop();
    }
    expect(rejections).toEqual([]);
  });

  const canMount = process.getuid?.() === 0 && (() => {
    const probe = join(root, 'mount-probe');
    mkdirSync(probe);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
      execFileSync('umount', [probe]);
      return true;
    } catch {
      return false;
    }
  })();

  it.skipIf(!canMount)('the disk fills up while the app runs: it keeps running with its state in memory, reports each failed save, and saves again once there is room', async () => {
    const dir = join(root, 'full-disk');
    mkdirSync(dir);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', dir]);
    try {
      const { engine, log } = await engineOn(dir);
      try {
        await engine.setSettings({ language: 'fa' });
        const one = await engine.addSubscription({ text: links('one', 10), name: 'One' });
        // Fill the disk.
        expect(() => writeFileSync(join(dir, 'filler'), Buffer.alloc(2 * 1024 * 1024))).toThrow(/ENOSPC/);

        await expect(engine.setSettings({ language: 'ru' })).rejects.toThrow(/^could not save .+settings\.json: the disk is full$/);
        expect((await engine.getSnapshot({})).settings.language).toBe('fa');
        const two = await engine.addSubscription({ text: links('two', 20), name: 'Two' });
        await engine.setAuto({ subscriptionId: two.id });
        const s = await engine.getSnapshot({});
        expect(s.subscriptions.map((sub) => sub.id)).toEqual([one.id, two.id]);
        expect(s.auto.subscriptionId).toBe(two.id);
        expect(log.lines.some((l) => / ERROR SUBSCRIPTIONS Could not save the subscriptions: .+the disk is full\. Changes are kept until the app closes\.$/.test(l))).toBe(true);
        await waitFor('a log line about Auto’s state', () => log.lines.some((l) => /( ERROR | WARNING ).*could not save .+auto\.json: the disk is full/.test(l)), 5000);
        // What is on disk is still the last good state, whole.
        expect(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8'))).toMatchObject({ language: 'fa' });
        expect((await subscriptionsFile(dir).load()).value.subscriptions.map((sub) => sub.id)).toEqual([one.id]);

        // Room again: the next change saves everything the app kept in memory.
        rmSync(join(dir, 'filler'));
        await engine.reorderSubscriptions({ ids: [one.id, two.id] });
        expect((await subscriptionsFile(dir).load()).value.subscriptions.map((sub) => sub.id)).toEqual([one.id, two.id]);
        // The refused settings change stays refused: the next one does not carry it along.
        await engine.setSettings({ theme: 'dark' });
        expect(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8'))).toMatchObject({ language: 'fa', theme: 'dark' });
        expect((await engine.getSnapshot({})).settings).toMatchObject({ language: 'fa', theme: 'dark' });
        expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
      } finally {
        await stopped(engine, dir);
      }
    } finally {
      execFileSync('umount', [dir]);
    }
    expect(rejections).toEqual([]);
  }, 60_000);
});
