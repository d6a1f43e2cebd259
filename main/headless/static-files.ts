/**
 * The built renderer's files, kept in memory once read. A page's first load asks for its code
 * while the host makes the window's first snapshot: read from disk in 64 KB pieces, each a turn of
 * the event loop that waited behind the snapshot's work, the app's 370 KB chunk took 100–200 ms to
 * arrive over loopback; from memory it goes out in the turn its request is read.
 *
 * A file is read again when its size or modification time changed (a rebuild while the host
 * runs). Only files up to `maxFileBytes` are kept, up to `maxTotalBytes` in all: the fonts' many
 * subsets are streamed as before, and the engine's memory stays bounded.
 */
import { readFileSync, statSync } from 'node:fs';

export interface StaticFile {
  /** The file's bytes when kept in memory; null for a file too big to keep (stream it). */
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
    if (info.size > this.maxFileBytes || this.keptBytes + info.size > this.maxTotalBytes) return { body: null, size: info.size };
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
