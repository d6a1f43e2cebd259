/**
 * `--routing FILE` for `connect` and `connect --auto`: a JSON file with the settings' `routing`
 * section and optionally `dns` (shared/routing.ts), so routing can be checked without the UI.
 * Every invalid entry is named; nothing is started with a file that does not validate.
 */
import type { DnsSettings, RoutingSettings } from '../../../shared/routing';
import { routingFileSchema, routingIssueText } from '../../../shared/routing';
import { readBoundedJson } from '../../json-input';

/** Far above any hand-written rules file (the rules' own limits come first), far below trouble. */
export const ROUTING_FILE_MAX_BYTES = 1024 * 1024;

export interface RoutingFile {
  routing: RoutingSettings;
  dns?: DnsSettings;
}

export class RoutingFileError extends Error {}

export async function readRoutingFile(path: string): Promise<RoutingFile> {
  const json = await readBoundedJson(path, 'routing', ROUTING_FILE_MAX_BYTES, (message) => new RoutingFileError(message));
  const parsed = routingFileSchema.safeParse(json);
  if (!parsed.success) throw new RoutingFileError(`the routing file ${path} is not valid:\n  ${routingIssueText(parsed.error).join('\n  ')}`);
  return parsed.data;
}
