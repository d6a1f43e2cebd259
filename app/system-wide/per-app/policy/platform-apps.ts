/**
 * The app picker's programs on Windows and macOS, read from what the platform's own tools print
 * (pure: the text comes in). Icons are not read there: the picker shows the name and the path.
 * - Windows: running programs from PowerShell's `Get-Process` (name and executable), installed
 *   ones from the uninstall keys' DisplayName and DisplayIcon, which names the program's .exe
 *   for most installers (`"C:\…\app.exe",0`); an entry whose icon is no .exe is left out.
 * - macOS: installed apps are the `.app` bundles in the Applications folders, entered as the whole
 *   bundle (shared/per-app.ts); a running program inside a bundle is shown as its bundle, others
 *   by their executable (`ps -axo comm=` prints full paths).
 */
import type { PickerApp } from '../../../../shared/per-app';

/** The PowerShell that prints the running programs as JSON. */
export const WINDOWS_RUNNING_SCRIPT = 'Get-Process | Where-Object { $_.Path } | Select-Object ProcessName, Path | ConvertTo-Json -Compress';

/** The PowerShell that prints the installed programs' uninstall entries as JSON. */
export const WINDOWS_INSTALLED_SCRIPT = [
  "$keys = 'HKLM:\\Software\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\*', 'HKLM:\\Software\\WOW6432Node\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\*', 'HKCU:\\Software\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\*'",
  'Get-ItemProperty $keys -ErrorAction SilentlyContinue | Where-Object { $_.DisplayName -and $_.DisplayIcon } | Select-Object DisplayName, DisplayIcon | ConvertTo-Json -Compress',
].join('; ');

/** ConvertTo-Json prints one object bare and several as an array; nothing at all for none. */
function jsonRows(text: string): Record<string, unknown>[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return [];
  }
  const rows = Array.isArray(parsed) ? parsed : [parsed];
  return rows.filter((row): row is Record<string, unknown> => typeof row === 'object' && row !== null);
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

const byName = (a: PickerApp, b: PickerApp) => a.name.localeCompare(b.name);

function distinct(apps: PickerApp[]): PickerApp[] {
  const seen = new Map<string, PickerApp>();
  for (const app of apps) if (!seen.has(app.path.toLowerCase())) seen.set(app.path.toLowerCase(), app);
  return [...seen.values()].sort(byName);
}

export function windowsRunning(output: string): PickerApp[] {
  return distinct(
    jsonRows(output).flatMap((row) => {
      const path = text(row.Path);
      const name = text(row.ProcessName);
      return path && name && /^[A-Za-z]:\\/.test(path) ? [{ name, path, icon: null }] : [];
    }),
  );
}

/** `"C:\Program Files\App\app.exe",0` → `C:\Program Files\App\app.exe`; null when it names no .exe. */
export function windowsIconProgram(displayIcon: string): string | null {
  const unquoted = displayIcon.trim().replace(/,\s*-?\d+$/, '').replace(/^"(.*)"$/, '$1').trim();
  return /^[A-Za-z]:\\.+\.exe$/i.test(unquoted) ? unquoted : null;
}

export function windowsInstalled(output: string): PickerApp[] {
  return distinct(
    jsonRows(output).flatMap((row) => {
      const name = text(row.DisplayName);
      const icon = text(row.DisplayIcon);
      const path = icon ? windowsIconProgram(icon) : null;
      return name && path ? [{ name, path, icon: null }] : [];
    }),
  );
}

/** The `.app` bundle a macOS executable lives in (`/Applications/X.app/Contents/MacOS/x` → `/Applications/X.app`). */
export function macBundleOf(executable: string): string | null {
  const at = executable.indexOf('.app/Contents/');
  return at > 0 ? executable.slice(0, at + 4) : null;
}

const bundleName = (bundle: string) => (bundle.split('/').pop() ?? bundle).replace(/\.app$/, '');

/** The bundles found in the Applications folders (their full paths). */
export function macInstalled(bundles: readonly string[]): PickerApp[] {
  return distinct(bundles.filter((b) => b.startsWith('/') && b.endsWith('.app')).map((path) => ({ name: bundleName(path), path, icon: null })));
}

export function macRunning(psOutput: string): PickerApp[] {
  return distinct(
    psOutput
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith('/'))
      .map((executable) => {
        const bundle = macBundleOf(executable);
        return bundle ? { name: bundleName(bundle), path: bundle, icon: null } : { name: executable.split('/').pop() as string, path: executable, icon: null };
      }),
  );
}
