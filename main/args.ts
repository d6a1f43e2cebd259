/**
 * Command-line options of the hosts and the CLI, read with Node's `util.parseArgs` and refused in
 * the words users of these commands know: the option at fault, then the usage line.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Spec = NonNullable<ParseArgsConfig['options']>;

/** Options and positionals are refused with this (exit code 2: a usage error). */
export class UsageError extends Error {
  readonly exitCode = 2;
}

type Values<S extends Spec> = {
  [K in keyof S]?: S[K] extends { type: 'string'; multiple: true } ? string[] : S[K] extends { type: 'string' } ? string : boolean;
};

export function readOptions<S extends Spec>(argv: readonly string[], spec: S, usage: string, allowPositionals = false): { values: Values<S>; positionals: string[] } {
  // Not strict: the tokens say which option is unknown or lacks its value, so the message can name it.
  const { values, positionals, tokens } = parseArgs({ args: [...argv], options: spec, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'positional' && !allowPositionals) throw new UsageError(`unexpected argument "${token.value}"\n${usage}`);
    if (token.kind !== 'option') continue;
    const option = spec[token.name];
    if (!option) throw new UsageError(`unknown option ${token.rawName}\n${usage}`);
    if (option.type === 'string' && (token.value === undefined || token.value.startsWith('--'))) throw new UsageError(`${token.rawName} needs a value\n${usage}`);
    if (option.type === 'boolean' && token.value !== undefined) throw new UsageError(`${token.rawName} takes no value\n${usage}`);
  }
  return { values: values as Values<S>, positionals };
}

/** A TCP port given on the command line. */
export function portOption(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > 65535) throw new UsageError(`${flag} needs a port number (1-65535), got "${raw}"`);
  return n;
}

/**
 * `--core NAME|PATH`: the main core, by name (`xray`, `v2ray`: wherever it is found) or as the path
 * of its program. sing-box is refused by name: it carries servers beside a main core, never instead
 * of one; any other bare word is taken for a misspelt name rather than looked for as a file.
 */
export function coreOption(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const value = raw.trim();
  if (value === 'xray' || value === 'v2ray') return value;
  if (value === 'sing-box') throw new UsageError('--core sing-box: sing-box carries servers beside a main core (xray or v2ray), it cannot be the main core');
  if (value === '' || !/[/\\]/.test(value)) throw new UsageError(`--core is xray, v2ray or the path of a core program, got "${raw}"`);
  return value;
}
