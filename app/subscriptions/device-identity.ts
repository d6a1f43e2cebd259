import { randomUUID } from 'node:crypto';
import { release } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { FIRST_FORMAT_FROM_UNVERSIONED } from '../storage/format';
import type { Problem } from '../../shared/domain/problem';
import { JsonFile } from '../storage/json-file';
import type { ProblemSink } from '../storage/problem-sink';

/**
 * The device identity subscription requests carry. Panels that limit devices per account
 * (Remnawave, and the clients Happ and v2rayN that speak to it) count distinct `x-hwid` values,
 * and answer a request without one with a single "App not supported" entry instead of the
 * servers. The id here is random, made once per installation and kept in `device-id.json`: it
 * says nothing about the hardware, and the only ones who see it are the user's own providers.
 * `"send": false` in that file leaves the headers out.
 */
export interface DeviceIdentity {
  id: string;
  send: boolean;
}

const schema = z.object({ id: z.string().uuid(), send: z.boolean().default(true) });

/** `problems`: where a failed save is put for the user. */
export function deviceIdentityFile(dataDir: string, problems?: ProblemSink): JsonFile<DeviceIdentity> {
  return new JsonFile<DeviceIdentity>({
    path: join(dataDir, 'device-id.json'),
    schema,
    format: FIRST_FORMAT_FROM_UNVERSIONED,
    fallback: () => ({ id: randomUUID(), send: true }),
    mode: 0o600,
    problems,
  });
}

/**
 * The installation's identity, made and saved on first use. A file that cannot be written
 * costs nothing but the id's stability: this run still sends one. `problem`: the file was
 * unreadable (set aside); `note`: a line for the log when anything went wrong, a failed save
 * included (that one is in the problem sink too).
 */
export async function loadDeviceIdentity(dataDir: string, problems?: ProblemSink): Promise<{ identity: DeviceIdentity; problem: Problem | null; note: string | null }> {
  const file = deviceIdentityFile(dataDir, problems);
  const loaded = await file.load();
  if (loaded.source === 'file') return { identity: loaded.value, problem: null, note: null };
  try {
    await file.save(loaded.value);
    return { identity: loaded.value, problem: loaded.problem, note: loaded.problem?.detail ?? null };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { identity: loaded.value, problem: loaded.problem, note: loaded.problem?.detail ?? `the device id could not be saved (${why}); providers that count devices may count this one again` };
  }
}

/** The headers Remnawave documents for device limits (x-hwid, x-device-os, x-ver-os); none when the user said no. */
export function deviceHeaders(identity: DeviceIdentity | null, platform: NodeJS.Platform = process.platform, osVersion: string = release()): Record<string, string> {
  if (!identity?.send) return {};
  return { 'x-hwid': identity.id, 'x-device-os': OS_NAMES[platform] ?? platform, 'x-ver-os': osVersion };
}

const OS_NAMES: Partial<Record<NodeJS.Platform, string>> = { win32: 'Windows', darwin: 'macOS', linux: 'Linux' };
