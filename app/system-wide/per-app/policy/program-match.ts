/**
 * Which running processes a per-app list names, for the TPROXY capture (nftables sees no paths:
 * the helper moves the processes it names into the list's cgroup, per-app/cgroup-follower.ts).
 * - a path entry: the process whose executable is that file — as written, or the file it resolves
 *   to (/usr/bin/firefox → /usr/lib/firefox-esr/firefox-esr: the kernel shows the resolved one) —
 *   or a script of that path, which runs as its interpreter with the script's path among its
 *   first arguments (`#!/bin/sh -e` gives `/bin/sh -e /usr/bin/foo`);
 * - a program name: any process whose executable has that file name, wherever it lies.
 * A process the list names keeps its children: they start in its cgroup.
 */
import { appEntryOf } from '../../../../shared/per-app';

export interface ProgramTargets {
  paths: readonly string[];
  names: readonly string[];
  /** A listed script (as written and as resolved) → the executable its interpreter resolves to (null: not known). */
  scripts: ReadonlyMap<string, string | null>;
}

/** What the helper found of a listed path: where it resolves, and, for a script, its interpreter's executable. */
export interface ResolvedPath {
  real: string | null;
  interpreter?: string | null;
}

/** The list's path and name entries (uids are matched by nftables itself), with what each path resolves to. */
export function programTargets(entries: readonly string[], resolved: ReadonlyMap<string, ResolvedPath>): ProgramTargets {
  const paths = new Set<string>();
  const names = new Set<string>();
  const scripts = new Map<string, string | null>();
  for (const text of entries) {
    const entry = appEntryOf(text);
    if (entry?.kind === 'path') {
      const found = resolved.get(entry.path);
      for (const path of [entry.path, found?.real]) {
        if (!path) continue;
        paths.add(path);
        if (found?.interpreter !== undefined) scripts.set(path, found.interpreter);
      }
    } else if (entry?.kind === 'name') {
      names.add(entry.name);
    }
  }
  return { paths: [...paths], names: [...names], scripts };
}

/** The interpreter a script's first line names (`#!/usr/bin/env python3` names python3, to be found on PATH). */
export function shebangInterpreter(firstLine: string): { program: string; onPath: boolean } | null {
  const match = /^#!\s*(\S+)(?:\s+(.*))?$/.exec(firstLine.replace(/\r?\n[\s\S]*$/, ''));
  if (!match) return null;
  const [, program, rest] = match as unknown as [string, string, string | undefined];
  if (fileName(program) !== 'env') return { program, onPath: false };
  const named = (rest ?? '').split(/\s+/).find((arg) => arg !== '' && !arg.startsWith('-') && !arg.includes('='));
  return named ? { program: named, onPath: !named.startsWith('/') } : null;
}

const fileName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/**
 * Whether a process is one the list names. `exe` is /proc/PID/exe (" (deleted)" when the file was
 * replaced since it started, as an upgrade does: still the same program), `argv` its command line.
 */
export function isListedProcess(targets: ProgramTargets, exe: string, argv: readonly string[]): boolean {
  const executable = exe.replace(/ \(deleted\)$/, '');
  if (targets.paths.includes(executable) || targets.names.includes(fileName(executable))) return true;
  // A script: its interpreter, with the script's path among its first two arguments (an option
  // from the shebang line may come first) — not any program that was handed the file to read.
  return argv.slice(1, 3).some((arg) => {
    if (!targets.scripts.has(arg)) return false;
    const interpreter = targets.scripts.get(arg);
    return interpreter === null || interpreter === executable;
  });
}

/** Whether command lines must be read (a listed path is a script: the kernel shows its interpreter). */
export function needsCommandLines(targets: ProgramTargets): boolean {
  return targets.scripts.size > 0;
}
