import { appendFileSync } from 'node:fs';
import { Redactor } from './redact';

export const LOG_LEVELS = ['debug', 'info', 'warning', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LogRecord {
  at: number;
  level: LogLevel;
  /** A subsystem tag such as "AUTO", "MONITORING", "LOWEST", "TUNNEL". */
  tag: string;
  message: string;
}

export type LogSink = (record: LogRecord, line: string) => void;

/**
 * The app's one logger. Every line passes through the redactor before any sink sees it, so no
 * sink can leak a credential. Lines read `2026-01-01T00:00:00.000Z INFO AUTO message`.
 */
export class Logger {
  readonly redactor: Redactor;
  private level: LogLevel;
  private sinks: LogSink[];

  constructor(options: { level?: LogLevel; sinks?: LogSink[]; redactor?: Redactor } = {}) {
    this.level = options.level ?? 'info';
    this.sinks = options.sinks ?? [];
    this.redactor = options.redactor ?? new Redactor();
  }

  setLevel(level: LogLevel): void {
    this.level = level;
  }

  addSink(sink: LogSink): () => void {
    this.sinks.push(sink);
    return () => {
      this.sinks = this.sinks.filter((s) => s !== sink);
    };
  }

  enabled(level: LogLevel): boolean {
    return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(this.level);
  }

  log(level: LogLevel, tag: string, message: string, at = Date.now()): void {
    if (!this.enabled(level)) return;
    const record: LogRecord = { at, level, tag, message: this.redactor.apply(message) };
    const line = formatLogLine(record);
    for (const sink of this.sinks) sink(record, line);
  }

  debug(tag: string, message: string): void {
    this.log('debug', tag, message);
  }
  info(tag: string, message: string): void {
    this.log('info', tag, message);
  }
  // What the user must be told goes to a problem sink (storage/problem-sink.ts), not through here.
  warn(tag: string, message: string): void {
    this.log('warning', tag, message);
  }
  error(tag: string, message: string): void {
    this.log('error', tag, message);
  }
}

export function formatLogLine(record: LogRecord): string {
  return `${new Date(record.at).toISOString()} ${record.level.toUpperCase()} ${record.tag} ${record.message}`;
}

export const stderrSink: LogSink = (_record, line) => {
  process.stderr.write(`${line}\n`);
};

/** Appends lines to a file (the app's log in its data folder). */
export function fileSink(path: string): LogSink {
  return (_record, line) => {
    try {
      appendFileSync(path, `${line}\n`, { mode: 0o600 });
    } catch {
      // A full disk or a read-only folder must not take the app down with it.
    }
  };
}

/** A logger that keeps records in memory: for tests and the UI's recent-log view. */
export function memoryLogger(level: LogLevel = 'debug'): { logger: Logger; records: LogRecord[]; lines: string[] } {
  const records: LogRecord[] = [];
  const lines: string[] = [];
  const logger = new Logger({
    level,
    sinks: [
      (record, line) => {
        records.push(record);
        lines.push(line);
      },
    ],
  });
  return { logger, records, lines };
}
