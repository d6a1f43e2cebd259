import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { firstIssueLine, firstIssueMessage, firstIssuePlace, issueLines, issuePlace, issuesByPlace } from './zod-issues';

const schema = z.object({ monitor: z.object({ intervalMs: z.number().min(1000, 'at least 1000') }), name: z.string('a text') }).strict();
const failure = (value: unknown) => {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('expected a failure');
  return parsed.error;
};
const atTop = failure(7);
const twoFields = failure({ monitor: { intervalMs: 5 }, name: 3 });

describe('schema issues told to a person', () => {
  it.each([
    ['dotted path by default', twoFields, {}, ['monitor.intervalMs: at least 1000', 'name: a text']],
    ['the whole named at the top', atTop, { whole: '(the file)' }, [`(the file): ${atTop.issues[0]!.message}`]],
    ['the message alone at the top of an unnamed value', atTop, {}, [atTop.issues[0]!.message]],
    ['the caller’s words for a place', twoFields, { place: (path: readonly PropertyKey[]) => path.map((p) => `[${String(p)}]`).join('') }, ['[monitor][intervalMs]: at least 1000', '[name]: a text']],
  ])('%s', (_name, error, wording, lines) => {
    expect(issueLines(error, wording)).toEqual(lines);
    expect(firstIssueLine(error, wording)).toBe(lines[0]);
  });

  it('names the place alone, or the whole at the top', () => {
    expect(issuePlace(twoFields.issues[0]!, { whole: 'top level' })).toBe('monitor.intervalMs');
    expect(issuePlace(atTop.issues[0]!, { whole: 'top level' })).toBe('top level');
    expect(firstIssuePlace(twoFields, { whole: 'top level' })).toBe('monitor.intervalMs');
  });

  it('gives the first message alone for a single field', () => {
    expect(firstIssueMessage(twoFields)).toBe('at least 1000');
  });

  it('keeps the first message of each place for a form', () => {
    const twice = z.string().min(5, 'too short').regex(/^a/, 'starts with a');
    const parsed = z.object({ code: twice }).safeParse({ code: 'b' });
    expect(parsed.success ? {} : issuesByPlace(parsed.error)).toEqual({ code: 'too short' });
    expect(issuesByPlace(atTop, { whole: 'settings' })).toEqual({ settings: atTop.issues[0]!.message });
  });
});
