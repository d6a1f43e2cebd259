/**
 * A JSON file a command is given (`--routing FILE`, `--settings FILE`), read with a size bound
 * before a byte of it is parsed. Each failure is said with the file's role and path.
 */
import { readFile, stat } from 'node:fs/promises';

export async function readBoundedJson(path: string, role: string, maxBytes: number, fail: (message: string) => Error): Promise<unknown> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    throw fail(`cannot read the ${role} file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  if (size > maxBytes) {
    throw fail(`the ${role} file ${path} is ${(size / 1024 / 1024).toFixed(1)} MB; at most ${maxBytes / 1024 / 1024} MB is read`);
  }
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw fail(`the ${role} file ${path} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}
