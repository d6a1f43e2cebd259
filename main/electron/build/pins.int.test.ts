/**
 * What ships is what ran: the cores the tests run here (built by setup from their Go modules) are
 * the versions pins.json pins for the installers, sing-box with exactly the build tags it records.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { labCore } from '../../../app/core/testing/cores';
import { readPins } from './fetch-cores';

const pinsFile = join(import.meta.dirname, '..', '..', '..', 'resources', 'core', 'pins.json');
const versionOf = (path: string) => execFileSync(path, ['version'], { encoding: 'utf8', timeout: 10_000 });

describe('the pinned cores are the cores the tests run', () => {
  it('Xray: the pinned release version', async () => {
    const xray = (await readPins(pinsFile)).cores.find((c) => c.name === 'xray')!;
    expect(versionOf(labCore('xray')).split('\n')[0]).toMatch(new RegExp(`^Xray ${xray.version.replaceAll('.', '\\.')} `));
  });

  it('sing-box: the pinned version, built with the pinned tags and none of those left out', async () => {
    const singBox = (await readPins(pinsFile)).cores.find((c) => c.name === 'sing-box')!;
    const printed = versionOf(labCore('sing-box'));
    expect(printed.split('\n')[0]).toBe(`sing-box version ${singBox.version}`);
    const tags = printed.match(/^Tags: (.*)$/m)?.[1]?.split(',') ?? [];
    expect(tags).toEqual(singBox.tags);
    for (const omitted of Object.keys(singBox.omittedTags ?? {})) expect(tags).not.toContain(omitted);
  });
});
