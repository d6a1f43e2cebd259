/**
 * The copies of the rule sets in force, under the app's data folder (`rule-sets/`), and their
 * updates: fetched direct first and through the tunnel when the direct fetch is blocked (the
 * fetcher's rule, as for subscriptions), read and counted, checked by the core that will use it,
 * and only then moved over the copy in force (each file renamed into place, the record written
 * atomically). A failed update leaves the copy in force as it was, across restarts too, and keeps
 * its reason in words.
 *
 * Each core gets the format it reads: Xray and v2ray read a `.dat` list themselves (`ext:`); an
 * `.srs` (decompiled by sing-box) or source JSON becomes their inline name and address rules.
 * sing-box reads `.srs` and source JSON; a `.dat` list is converted for it to source JSON and
 * compiled to `.srs` (`sing-box rule-set compile`) when sing-box is there.
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { RuleSetStatus } from '../../../shared/domain/routing';
import { type RuleSet, RULE_SET_FORMATS } from '../../../shared/rule-sets';
import type { Clock } from '../../clock';
import { Signal } from '../../events';
import type { Logger } from '../../log/logger';
import { FIRST_FORMAT } from '../../storage/format';
import type { Problem } from '../../../shared/domain/problem';
import { JsonFile } from '../../storage/json-file';
import type { ProblemSink } from '../../storage/problem-sink';
import { contentProblem, entryCount, readSourceJson, type RuleSetContent, type RuleSetRoute, toSourceJson } from './content';

export type { RuleSetRoute } from './content';
import { type Check, checkWithSingBox, checkWithXray, compileRuleSet, type CoreBinary, decompileRuleSet } from './core-tools';
import { readGeoipList, readGeositeList } from './geo-dat';
import { candidateProblem, recordFor, UPDATE_RULES, type UpdateRecord } from './policy/update';

/** What the store needs from the network: the subscriptions' fetcher fits. */
export interface RuleSetFetcher {
  fetch(url: string, options?: { signal?: AbortSignal }): Promise<{ ok: true; body: Buffer; viaTunnel?: boolean } | { ok: false; message: string }>;
}

export interface RuleSetCores {
  /** The core that routes (Xray, or v2ray): it checks and reads what routing uses. */
  router: CoreBinary | null;
  /** sing-box, when found: it reads `.srs` and converts. */
  singBox: CoreBinary | null;
}

/** What sing-box reads for the set: a local rule set in its format. */
export interface SingBoxRuleSet {
  path: string;
  format: 'binary' | 'source';
}

const EXTENSION: Record<RuleSet['format'], string> = { 'geosite-dat': 'dat', 'geoip-dat': 'dat', srs: 'srs', 'source-json': 'json' };

const recordSchema = z.object({
  source: z.object({ url: z.string(), format: z.enum(RULE_SET_FORMATS), list: z.string().optional() }),
  copy: z.object({ fetchedAt: z.number(), bytes: z.number(), entries: z.number(), viaTunnel: z.boolean().default(false) }).nullable(),
  lastAttemptAt: z.number().nullable(),
  lastError: z.string().nullable(),
  /** Why the router core cannot use the copy (an `.srs` whose rules Xray cannot take), else null. */
  routerUnusable: z.string().nullable().default(null),
  /** The sing-box form of the copy, or why there is none. */
  singBox: z.union([z.object({ file: z.string(), format: z.enum(['binary', 'source']) }), z.object({ unusable: z.string() })]).nullable().default(null),
});
type StoredRecord = z.infer<typeof recordSchema>;
const stateSchema = z.object({ sets: z.record(z.string(), recordSchema) });

export class RuleSetStore {
  readonly dir: string;
  private readonly file: JsonFile<{ sets: Record<string, StoredRecord> }>;
  private records: Record<string, StoredRecord> = {};
  /** Inline content of copies the router core takes inline (from `.srs` and JSON). */
  private readonly inline = new Map<string, RuleSetContent>();
  private queue: Promise<unknown> = Promise.resolve();
  /** A set was updated or failed to: routing and its view should be looked at again. */
  readonly changed = new Signal<string>('rule-set-changed');
  /** Set when the sets' record was unreadable at start (it was set aside). */
  problem: Problem | null = null;

  constructor(
    private readonly options: {
      dataDir: string;
      fetcher: RuleSetFetcher;
      cores: RuleSetCores;
      clock: Pick<Clock, 'now'>;
      logger: Logger;
      maxBytes?: number;
      /** Where a failed save of the sets' record is put for the user. */
      problems?: ProblemSink;
    },
  ) {
    this.dir = join(options.dataDir, 'rule-sets');
    this.file = new JsonFile({ path: join(this.dir, 'rule-sets.json'), schema: stateSchema, format: FIRST_FORMAT, fallback: () => ({ sets: {} }), problems: options.problems });
  }

  async load(): Promise<void> {
    const loaded = await this.file.load();
    this.problem = loaded.problem;
    this.records = loaded.value.sets;
    for (const [id, record] of Object.entries(this.records)) {
      if (!record.copy || record.routerUnusable || record.source.format === 'geosite-dat' || record.source.format === 'geoip-dat') continue;
      const text = await readFile(join(this.dir, `${id}.router.json`), 'utf8').catch(() => null);
      const content = text ? contentSchema.safeParse(JSON.parse(text)) : null;
      if (content?.success) this.inline.set(id, content.data);
      else this.options.logger.warn('ROUTING', `rule set "${id}": its converted copy is missing; it is fetched again`);
    }
  }

  /** The records the update policy reads. */
  updateRecords(): Record<string, UpdateRecord> {
    return Object.fromEntries(Object.entries(this.records).map(([id, r]) => [id, { source: r.source, copy: r.copy, lastAttemptAt: r.lastAttemptAt, lastError: r.lastError }]));
  }

  /** Each set of the settings as the Routing page shows it. */
  status(sets: readonly RuleSet[]): RuleSetStatus[] {
    return sets.map((set) => {
      const record = recordFor(set, this.records[set.id]) as StoredRecord | null;
      return {
        id: set.id,
        name: set.name,
        enabled: set.enabled,
        copy: record?.copy ? { ...record.copy } : null,
        lastError: record?.lastError ?? null,
        lastAttemptAt: record?.lastAttemptAt ?? null,
        unusable: record?.copy ? this.routerProblem(set.id, record) : null,
      };
    });
  }

  /** The routes of the sets that are on and have a copy the router core can use. */
  routes(sets: readonly RuleSet[]): RuleSetRoute[] {
    const routes: RuleSetRoute[] = [];
    for (const set of sets) {
      if (!set.enabled) continue;
      const record = recordFor(set, this.records[set.id]) as StoredRecord | null;
      if (!record?.copy || this.routerProblem(set.id, record)) continue;
      const common = { id: set.id, name: set.name, outbound: set.outbound, inPlaceOfPreset: set.inPlaceOfPreset, revision: record.copy.fetchedAt };
      if (set.format === 'geosite-dat' || set.format === 'geoip-dat') {
        const ref = `ext:${set.id}.dat:${set.list}`;
        routes.push({ ...common, domains: set.format === 'geosite-dat' ? [ref] : [], cidrs: set.format === 'geoip-dat' ? [ref] : [] });
      } else {
        const content = this.inline.get(set.id);
        if (content) routes.push({ ...common, domains: content.domains, cidrs: content.cidrs });
      }
    }
    return routes;
  }

  /** What sing-box reads for the set, or why it cannot. */
  singBoxRuleSet(set: RuleSet): SingBoxRuleSet | { unusable: string } | null {
    const record = recordFor(set, this.records[set.id]) as StoredRecord | null;
    if (!record?.copy || !record.singBox) return null;
    return 'unusable' in record.singBox ? record.singBox : { path: join(this.dir, record.singBox.file), format: record.singBox.format };
  }

  /** Fetches the set now; resolves with its status. Updates run one at a time. */
  update(set: RuleSet): Promise<RuleSetStatus> {
    const next = this.queue.catch(() => undefined).then(() => this.updateNow(set));
    this.queue = next;
    return next;
  }

  private routerProblem(id: string, record: StoredRecord): string | null {
    if (record.routerUnusable) return record.routerUnusable;
    const dat = record.source.format === 'geosite-dat' || record.source.format === 'geoip-dat';
    return dat || this.inline.has(id) ? null : 'its converted copy is missing';
  }

  private async updateNow(set: RuleSet): Promise<RuleSetStatus> {
    const now = this.options.clock.now();
    const previous = recordFor(set, this.records[set.id]) as StoredRecord | null;
    const source = { url: set.url, format: set.format, ...(set.list ? { list: set.list } : {}) };
    let outcome: { ok: true; record: StoredRecord; content: RuleSetContent | null } | { ok: false; problem: string };
    try {
      outcome = await this.fetchAndCheck(set, now);
    } catch (error) {
      outcome = { ok: false, problem: error instanceof Error ? error.message : String(error) };
    }
    if (outcome.ok) {
      this.records[set.id] = outcome.record;
      if (outcome.content) this.inline.set(set.id, outcome.content);
      else this.inline.delete(set.id);
      const copy = outcome.record.copy;
      this.options.logger.info('ROUTING', `rule set "${set.name}" updated${copy?.viaTunnel ? ' through the tunnel' : ''}: ${copy?.entries} entries, ${copy?.bytes} bytes`);
    } else {
      this.records[set.id] = previous
        ? { ...previous, lastAttemptAt: now, lastError: outcome.problem }
        : { source, copy: null, lastAttemptAt: now, lastError: outcome.problem, routerUnusable: null, singBox: null };
      this.options.logger.warn('ROUTING', `rule set "${set.name}" not updated: ${outcome.problem}${previous?.copy ? '; the copy in force stays' : ''}`);
    }
    await this.file.save({ sets: this.records }).catch((error: unknown) => this.options.logger.warn('ROUTING', `rule sets: ${String(error)}`));
    this.changed.emit(set.id);
    return this.status([set])[0] as RuleSetStatus;
  }

  private async fetchAndCheck(set: RuleSet, now: number): Promise<{ ok: true; record: StoredRecord; content: RuleSetContent | null } | { ok: false; problem: string }> {
    const { router, singBox } = this.options.cores;
    if (!router) return { ok: false, problem: 'no core was found to check the file with' };
    const fetched = await this.options.fetcher.fetch(set.url);
    if (!fetched.ok) return { ok: false, problem: fetched.message };
    const maxBytes = this.options.maxBytes ?? UPDATE_RULES.maxBytes;
    const bytes = fetched.body.length;
    const tooLarge = candidateProblem({ bytes, entries: 1 }, maxBytes);
    if (tooLarge) return { ok: false, problem: tooLarge };

    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const final = `${set.id}.${EXTENSION[set.format]}`;
    const candidate = join(this.dir, `${set.id}.new.${EXTENSION[set.format]}`);
    const staged: [string, string][] = [[candidate, final]];
    const cleanUp = () => Promise.all(staged.map(([from]) => rm(from, { force: true })));
    try {
      await writeFile(candidate, fetched.body, { mode: 0o600 });
      const read = await this.readCandidate(set, candidate, fetched.body);
      if (!read.ok) return read;
      const problem = candidateProblem({ bytes, entries: read.entries }, maxBytes) ?? contentProblem(read.content ?? read.datContent ?? { domains: [], cidrs: [] });
      if (problem) return { ok: false, problem };

      // The router core's own test, on the form it will read.
      const routerCheck: Check = read.content
        ? read.notConvertible
          ? { ok: true }
          : await checkWithXray(router, this.dir, read.content)
        : await checkWithXray(router, this.dir, { file: candidate, list: set.list ?? '', holds: set.format === 'geosite-dat' ? 'names' : 'addresses' });
      if (!routerCheck.ok) return { ok: false, problem: routerCheck.problem };
      const routerUnusable = read.notConvertible ? `${router.family} cannot use this set: ${read.notConvertible}` : null;

      const singBoxForm = await this.singBoxForm(set, candidate, read, singBox, staged);
      if (read.content && !routerUnusable) {
        const routerFile = join(this.dir, `${set.id}.new.router.json`);
        staged.push([routerFile, `${set.id}.router.json`]);
        await writeFile(routerFile, JSON.stringify(read.content), { mode: 0o600 });
      }
      // Everything checked: the new files go into place, then the record that names them.
      for (const [from, to] of staged) await rename(from, join(this.dir, to));
      staged.length = 0;
      const record: StoredRecord = {
        source: { url: set.url, format: set.format, ...(set.list ? { list: set.list } : {}) },
        copy: { fetchedAt: now, bytes, entries: read.entries, viaTunnel: fetched.viaTunnel === true },
        lastAttemptAt: now,
        lastError: null,
        routerUnusable,
        singBox: singBoxForm,
      };
      return { ok: true, record, content: routerUnusable ? null : read.content };
    } finally {
      await cleanUp();
    }
  }

  /** The candidate read and counted: a `.dat` list by the app, an `.srs` through sing-box, JSON directly. */
  private async readCandidate(
    set: RuleSet,
    candidate: string,
    body: Buffer,
  ): Promise<{ ok: true; entries: number; content: RuleSetContent | null; notConvertible: string | null; datContent?: RuleSetContent } | { ok: false; problem: string }> {
    switch (set.format) {
      case 'geosite-dat':
      case 'geoip-dat': {
        const read = set.format === 'geosite-dat' ? readGeositeList(body, set.list ?? '') : readGeoipList(body, set.list ?? '');
        if (!read.ok) return { ok: false, problem: read.problem };
        return { ok: true, entries: entryCount(read.content), content: null, notConvertible: null, datContent: read.content };
      }
      case 'srs': {
        const singBox = this.options.cores.singBox;
        if (!singBox) return { ok: false, problem: `${this.options.cores.router?.family ?? 'the core'} cannot read .srs files and no sing-box was found to convert it` };
        const checked = await checkWithSingBox(singBox, candidate, 'binary');
        if (!checked.ok) return checked;
        const json = join(this.dir, `${set.id}.new.decompiled.json`);
        try {
          const decompiled = await decompileRuleSet(singBox, candidate, json);
          if (!decompiled.ok) return decompiled;
          const read = readSourceJson(await readFile(json, 'utf8'));
          if (!read.ok) return { ok: false, problem: read.problem };
          return { ok: true, entries: entryCount(read.content), content: read.content, notConvertible: read.notConvertible };
        } finally {
          await rm(json, { force: true });
        }
      }
      case 'source-json': {
        const read = readSourceJson(body.toString('utf8'));
        if (!read.ok) return { ok: false, problem: read.problem };
        return { ok: true, entries: entryCount(read.content), content: read.content, notConvertible: read.notConvertible };
      }
    }
  }

  /** The sing-box form: the copy itself where sing-box reads the format, a compiled `.srs` of a `.dat` list. */
  private async singBoxForm(
    set: RuleSet,
    candidate: string,
    read: { datContent?: RuleSetContent },
    singBox: CoreBinary | null,
    staged: [string, string][],
  ): Promise<StoredRecord['singBox']> {
    if (set.format === 'srs') return { file: `${set.id}.srs`, format: 'binary' };
    if (!singBox) return { unusable: 'no sing-box was found' };
    if (set.format === 'source-json') {
      const checked = await checkWithSingBox(singBox, candidate, 'source');
      return checked.ok ? { file: `${set.id}.json`, format: 'source' } : { unusable: checked.problem };
    }
    const source = join(this.dir, `${set.id}.new.sing-box.json`);
    const compiled = join(this.dir, `${set.id}.new.sing-box.srs`);
    staged.push([source, `${set.id}.sing-box.json`]);
    await writeFile(source, JSON.stringify(toSourceJson(read.datContent ?? { domains: [], cidrs: [] })), { mode: 0o600 });
    const made = await compileRuleSet(singBox, source, compiled);
    if (!made.ok) return { unusable: made.problem };
    staged.push([compiled, `${set.id}.sing-box.srs`]);
    const checked = await checkWithSingBox(singBox, compiled, 'binary');
    return checked.ok ? { file: `${set.id}.sing-box.srs`, format: 'binary' } : { unusable: checked.problem };
  }
}

const contentSchema = z.object({ domains: z.array(z.string()), cidrs: z.array(z.string()) });
