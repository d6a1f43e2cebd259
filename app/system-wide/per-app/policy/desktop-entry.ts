/**
 * A Linux `.desktop` file (freedesktop Desktop Entry) read for the app picker: the name shown,
 * the icon named, and the program it runs. Only `[Desktop Entry]` counts; hidden entries and
 * non-applications are left out.
 */
export interface DesktopApp {
  name: string;
  /** The program: an absolute path, or a bare name still to be found on PATH. */
  program: string;
  /** An icon theme name or an absolute file path, as the file gives it. */
  icon: string | null;
}

/** `Exec`'s program: the first word, quotes honoured, `env VAR=… prog` and flatpak's wrapper seen through. */
export function programOfExec(exec: string): string | null {
  const words: string[] = [];
  for (const match of exec.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)) words.push((match[1] ?? match[2] ?? '').replace(/\\(.)/g, '$1'));
  let i = 0;
  if (words[i] === 'env' || words[i] === '/usr/bin/env') {
    i++;
    while (words[i] !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!)) i++;
  }
  const program = words[i];
  if (!program || program.startsWith('%')) return null;
  return program;
}

export function parseDesktopEntry(text: string, language?: string): DesktopApp | null {
  const fields = new Map<string, string>();
  let inEntry = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('[')) {
      inEntry = line === '[Desktop Entry]';
      continue;
    }
    if (!inEntry) continue;
    const eq = line.indexOf('=');
    if (eq > 0) fields.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  if (fields.get('Type') !== 'Application' || fields.get('NoDisplay') === 'true' || fields.get('Hidden') === 'true') return null;
  const exec = fields.get('Exec');
  const program = exec ? programOfExec(exec) : null;
  const localized = language ? (fields.get(`Name[${language}]`) ?? fields.get(`Name[${language.split(/[-_]/)[0]}]`)) : undefined;
  const name = localized ?? fields.get('Name');
  if (!program || !name) return null;
  return { name, program, icon: fields.get('Icon') || null };
}
