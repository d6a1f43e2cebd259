/**
 * The built renderer's files, kept in memory once read. A page's first load asks for its code
 * while the host makes the window's first snapshot: read from disk in 64 KB pieces, each a turn of
 * the event loop that waited behind the snapshot's work, the app's 370 KB chunk took 100–200 ms to
 * arrive over loopback; from memory it goes out in the turn its request is read.
 *
 * A file is read again when its size or modification time changed (a rebuild while the host
 * runs). Only the page, its code and its styles are kept, each up to `maxFileBytes` and up to
 * `maxTotalBytes` in all: the fonts' many subsets come after the first frame and are streamed as
 * before, so the engine's memory stays bounded.
 */
import { readFileSync, statSync } from 'node:fs';
import { extname } from 'node:path';

/** What the first frame waits for. */
const KEPT_TYPES = new Set(['.html', '.js', '.css']);

export interface StaticFile {
  /** The file's bytes when kept in memory; null for one not kept (a font, or over the limits): stream it. */
  body: Buffer | null;
  size: number;
}

interface Kept {
  body: Buffer;
  mtimeMs: number;
}

export class StaticFiles {
  private readonly kept = new Map<string, Kept>();
  private keptBytes = 0;

  constructor(
    private readonly maxFileBytes = 1024 * 1024,
    private readonly maxTotalBytes = 16 * 1024 * 1024,
  ) {}

  /** The regular file at `path` (absolute, already checked to be inside the served folder), or null. */
  get(path: string): StaticFile | null {
    let info;
    try {
      info = statSync(path);
    } catch {
      return null;
    }
    if (!info.isFile()) return null;
    const kept = this.kept.get(path);
    if (kept && kept.mtimeMs === info.mtimeMs && kept.body.length === info.size) return { body: kept.body, size: info.size };
    if (kept) this.forget(path, kept);
    if (!KEPT_TYPES.has(extname(path)) || info.size > this.maxFileBytes || this.keptBytes + info.size > this.maxTotalBytes) return { body: null, size: info.size };
    let body: Buffer;
    try {
      body = readFileSync(path);
    } catch {
      return null;
    }
    // Changed between the stat and the read: serve what was read, keep nothing.
    if (body.length !== info.size) return { body, size: body.length };
    this.kept.set(path, { body, mtimeMs: info.mtimeMs });
    this.keptBytes += body.length;
    return { body, size: body.length };
  }

  /** Bytes held in memory now. */
  bytes(): number {
    return this.keptBytes;
  }

  private forget(path: string, kept: Kept): void {
    this.kept.delete(path);
    this.keptBytes -= kept.body.length;
  }
}
