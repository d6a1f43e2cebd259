import { describe, expect, it } from 'vitest';
import { refusalFromWire, refusalToWire } from '../ipc/answer';
import { settingsPatchSchema } from '../settings';
import { EngineRefusal, validationOfError } from './refusal';
import { validationFromWire, validationOf } from './validation';

/** The first problem the settings' own schema finds in `patch`, as the window receives it. */
function firstProblem(patch: unknown) {
  const parsed = settingsPatchSchema.safeParse(patch);
  if (parsed.success) throw new Error('the patch was accepted');
  const issue = parsed.error.issues[0]!;
  return validationOf(issue, issue.message);
}

const rule = (fields: Record<string, unknown>) => ({ routing: { rules: [{ outbound: 'direct', ...fields }] } });

describe('a refused settings value as a topic and its parameters', () => {
  it.each([
    ['an IP entry that is no address', rule({ ip: ['10.0.0/8'] }), 'not-ip-or-cidr', { value: '10.0.0/8' }, ['routing', 'rules', 0, 'ip', 0]],
    ['a prefix beyond /32', rule({ ip: ['127.0.0.0/33'] }), 'prefix-length', { value: '127.0.0.0/33', max: 32 }, ['routing', 'rules', 0, 'ip', 0]],
    ['a port range that runs backwards', rule({ port: '443,2000-1000' }), 'port-range-backwards', { value: '443,2000-1000', part: '2000-1000' }, ['routing', 'rules', 0, 'port']],
    ['a port beyond 65535', rule({ port: '70000' }), 'port-outside-range', { value: '70000', part: '70000' }, ['routing', 'rules', 0, 'port']],
    ['a geosite entry', rule({ domain: ['geosite:cn'] }), 'geosite-list', { value: 'geosite:cn' }, ['routing', 'rules', 0, 'domain', 0]],
    ['a regexp with look-ahead', rule({ domain: ['regexp:(?=x)'] }), 'regexp-unsupported', { value: 'regexp:(?=x)' }, ['routing', 'rules', 0, 'domain', 0]],
    ['a name with a space', rule({ domain: ['full:a b.ir'] }), 'not-host-name', { value: 'full:a b.ir' }, ['routing', 'rules', 0, 'domain', 0]],
    ['a rule that matches nothing', rule({}), 'rule-matches-nothing', {}, ['routing', 'rules', 0]],
    ['an unknown outbound', { routing: { rules: [{ domain: ['x.ir'], outbound: 'elsewhere' }] } }, 'unknown-outbound', { options: 'proxy, direct, block, group:NAME' }, ['routing', 'rules', 0, 'outbound']],
    ['a hosts address that is neither', { routing: { hosts: { 'bank.ir': 'not an address' } } }, 'not-ip-or-host', { value: 'not an address' }, ['routing', 'hosts', 'bank.ir']],
    ['a remote resolver that is no DoH address', { dns: { remote: 'ftp://x' } }, 'not-doh-or-resolver', { value: 'ftp://x' }, ['dns', 'remote']],
    ['a port number too large', { httpPort: 70000 }, 'number-too-big', { limit: 65535 }, ['httpPort']],
    ['a field the settings do not have', { colour: 'red' }, 'unknown-field', { keys: 'colour' }, []],
    ['a value of the wrong kind', { httpPort: 'eighty' }, 'wrong-type', { expected: 'number' }, ['httpPort']],
    ['a list-based rule set without its list', { routing: { ruleSets: [{ id: 'lab', name: 'Lab', url: 'http://127.0.0.1:8080/geosite.dat', format: 'geosite-dat', outbound: 'direct' }] } }, 'rule-set-needs-list', { format: 'geosite-dat' }, ['routing', 'ruleSets', 0, 'list']],
    ['a server chained through itself', { chains: { s1: 's1' } }, 'chain-through-itself', {}, ['chains', 's1']],
    ['two groups of one name', { groups: [{ name: 'AI', members: { by: 'servers', serverIds: ['s1'] } }, { name: 'AI', members: { by: 'servers', serverIds: ['s2'] } }] }, 'group-name-twice', { value: 'AI' }, ['groups', 1, 'name']],
    ['sharing turned on without an address', { sharing: { enabled: true, address: '' } }, 'sharing-address-needed', {}, ['sharing', 'address']],
    ['a language the app does not speak', { language: 'de' }, 'not-a-choice', { options: 'en, ru, fa, ar, zh, system' }, ['language']],
  ])('%s', (_, patch, topic, params, path) => {
    expect(firstProblem(patch)).toMatchObject({ topic, params, path });
  });

  it('keeps the English sentence for the log beside the topic', () => {
    expect(firstProblem(rule({ ip: ['10.0.0/8'] })).english).toBe('"10.0.0/8" is not an IP address or CIDR block');
  });

  it('an issue without a topic of its own is "invalid", worded by its English', () => {
    expect(validationOf({ code: 'custom', path: ['groups', 1, 'name'], message: '"AI" names two groups' }, 'x')).toMatchObject({ topic: 'invalid', params: { detail: '"AI" names two groups' } });
  });
});

describe('a validation problem across a transport', () => {
  const problem = { topic: 'prefix-length', params: { value: '127.0.0.0/33', max: 32 }, path: ['routing', 'rules', 0, 'ip', 0], english: 'invalid setting routing, rule 1, ip 1: …' } as const;

  it('arrives with its refusal, as sent', () => {
    const wire = JSON.parse(JSON.stringify(refusalToWire(new EngineRefusal('invalid-setting', problem.english, problem))));
    const arrived = refusalFromWire(wire);
    expect(arrived).toBeInstanceOf(EngineRefusal);
    expect(validationOfError(arrived)).toEqual(problem);
  });

  it.each([
    ['an unknown topic', { ...problem, topic: 'made-up' }],
    ['no English', { ...problem, english: undefined }],
    ['a path of objects', { ...problem, path: [{}] }],
    ['no object at all', 'prefix-length'],
  ])('is dropped when it has %s: the refusal keeps its words', (_, validation) => {
    expect(validationFromWire(validation)).toBeUndefined();
    expect(refusalFromWire({ error: problem.english, code: 'invalid-setting', validation }).message).toBe(problem.english);
  });

  it('keeps only the parameters that are text or numbers', () => {
    expect(validationFromWire({ ...problem, params: { value: 'x', max: 32, nested: { a: 1 } } })?.params).toEqual({ value: 'x', max: 32 });
  });
});
