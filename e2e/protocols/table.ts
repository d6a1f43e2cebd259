/**
 * The protocol table as data: one cell per (lab protocol, client core), `run`, `unsupported:
 * <reason>` or `fails: <what a user would see>`, compared with an expected table of one line per
 * cell, and printed as markdown for the README's support matrix.
 */

export const CLIENT_CORES = ['xray', 'sing-box', 'v2ray'] as const;
export type ClientCore = (typeof CLIENT_CORES)[number];

/** "vless-reality-vision × xray": the key of one cell, as the expected table writes it. */
export function cellKey(row: string, core: ClientCore): string {
  return `${row} × ${core}`;
}

export type Cell = 'run' | `unsupported: ${string}` | `fails: ${string}`;

/** Cells whose outcome differs from the expected one: "key: expected → got" lines (missing and extra cells too). */
export function tableDifferences(expected: Readonly<Record<string, Cell>>, actual: Readonly<Record<string, Cell>>): string[] {
  const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
  return keys.filter((k) => expected[k] !== actual[k]).map((k) => `${k}: expected ${expected[k] ?? '(no such cell)'} → got ${actual[k] ?? '(not measured)'}`);
}

/** A markdown table: a row per protocol, a column per core; ✅ run, — unsupported (with the reason), ❌ fails. */
export function markdownTable(rows: readonly { row: string; label: string }[], cells: Readonly<Record<string, Cell>>): string {
  const mark = (cell: Cell | undefined): string => {
    if (cell === undefined) return '?';
    if (cell === 'run') return '✅ runs';
    const [kind, ...rest] = cell.split(': ');
    const why = rest.join(': ').replace(/\|/g, '\\|');
    return kind === 'unsupported' ? `— ${why}` : `❌ ${why}`;
  };
  const header = `| protocol | ${CLIENT_CORES.join(' | ')} |`;
  const rule = `|---|${CLIENT_CORES.map(() => '---').join('|')}|`;
  const lines = rows.map(({ row, label }) => `| ${label} | ${CLIENT_CORES.map((core) => mark(cells[cellKey(row, core)])).join(' | ')} |`);
  return [header, rule, ...lines].join('\n');
}
