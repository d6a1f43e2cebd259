/**
 * `--routing FILE` for `connect` and `connect --auto`: a JSON file with the settings' `routing`
 * section and optionally `dns` (shared/routing.ts), so routing can be checked without the UI.
 * Every invalid entry is named; nothing is started with a file that does not validate.
 */
import { readFile, stat } from 'node:fs/promises';
import type { DnsSettings, RoutingSettings } from '../../../shared/routing';
import { routingFileSchema, routingIssueText } from '../../../shared/routing';

/** Far above any hand-written rules file (the rules' own limits come first), far below trouble. */
export const ROUTING_FILE_MAX_BYTES = 1024 * 1024;

export interface RoutingFile {
  routing: RoutingSettings;
  dns?: DnsSettings;
}

export class RoutingFileError extends Error {}

export async function readRoutingFile(path: string): Promise<RoutingFile> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    throw new RoutingFileError(`cannot read the routing file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  if (size > ROUTING_FILE_MAX_BYTES) {
    throw new RoutingFileError(`the routing file ${path} is ${(size / 1024 / 1024).toFixed(1)} MB; at most ${ROUTING_FILE_MAX_BYTES / 1024 / 1024} MB is read`);
  }
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new RoutingFileError(`the routing file ${path} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = routingFileSchema.safeParse(json);
  if (!parsed.success) throw new RoutingFileError(`the routing file ${path} is not valid:\n  ${routingIssueText(parsed.error).join('\n  ')}`);
  return parsed.data;
}
