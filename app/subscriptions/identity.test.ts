import { describe, expect, it } from 'vitest';
import type { ParsedServer, Server } from '../../shared/domain/server';
import { assignIds } from './identity';

const SUB = 'sub-1';

type TrojanServer = Extract<ParsedServer, { protocol: 'trojan' }>;

function trojan(name: string, address: string, password: string, port = 443): TrojanServer {
  return { name, protocol: 'trojan', address, port, password, transport: { network: 'tcp' }, security: { type: 'tls' } };
}

function vless(name: string, address: string, uuid: string, port = 443): ParsedServer {
  return { name, protocol: 'vless', address, port, uuid, encryption: 'none', transport: { network: 'tcp' }, security: { type: 'none' } };
}

const A = trojan('🇩🇪 Germany', 'de.example.com', 'pw-a');
const B = trojan('🇳🇱 Netherlands', 'nl.example.com', 'pw-b');
const C = trojan('🇫🇮 Finland', 'fi.example.com', 'pw-c');

/** The id each name got, for readable assertions. */
const idsByName = (servers: Server[]) => Object.fromEntries(servers.map((s) => [s.name, s.id]));

describe('assignIds: the same server keeps its id across updates', () => {
  const first = assignIds(SUB, [], [A, B, C]);
  const id = idsByName(first);

  it('gives new servers distinct ids bound to the subscription', () => {
    expect(new Set(first.map((s) => s.id)).size).toBe(3);
    expect(first.every((s) => s.subscriptionId === SUB)).toBe(true);
  });

  it('keeps ids when the provider reorders the list', () => {
    expect(idsByName(assignIds(SUB, first, [C, A, B]))).toEqual(id);
  });

  it('keeps ids when the provider renames servers (the endpoint is unchanged)', () => {
    const renamed = assignIds(SUB, first, [{ ...A, name: 'DE-1 🔥' }, B, C]);
    expect(renamed[0]?.id).toBe(id['🇩🇪 Germany']);
  });

  it('two servers swapping names keep their own ids (the name follows the endpoint)', () => {
    const swapped = assignIds(SUB, first, [{ ...A, name: B.name }, { ...B, name: A.name }, C]);
    expect(swapped.map((s) => [s.address, s.id])).toEqual([
      ['de.example.com', id['🇩🇪 Germany']],
      ['nl.example.com', id['🇳🇱 Netherlands']],
      ['fi.example.com', id['🇫🇮 Finland']],
    ]);
  });

  it('re-issued credentials under the same name keep the id', () => {
    const reissued = assignIds(SUB, first, [{ ...A, password: 'new-pw-a' }, { ...B, password: 'new-pw-b' }, C]);
    expect(idsByName(reissued)).toEqual(id);
  });

  it('an address or port change under the same name keeps the id', () => {
    const moved = assignIds(SUB, first, [{ ...A, address: '203.0.113.9' }, { ...B, port: 8443 }, C]);
    expect(idsByName(moved)).toEqual(id);
  });

  it('a server whose endpoint and name both changed is a new server', () => {
    const replaced = assignIds(SUB, first, [trojan('🇹🇷 Türkiye', 'tr.example.com', 'pw-t'), B, C]);
    expect(Object.values(id)).not.toContain(replaced[0]?.id);
    expect(replaced.slice(1).map((s) => s.id)).toEqual([id['🇳🇱 Netherlands'], id['🇫🇮 Finland']]);
  });

  it('a server removed and later re-added gets its old id back', () => {
    const without = assignIds(SUB, first, [A, C]);
    const back = assignIds(SUB, without, [A, B, C]);
    expect(idsByName(back)).toEqual(id);
  });

  it('adding the same list again from scratch yields the same ids (derived, not random)', () => {
    expect(idsByName(assignIds(SUB, [], [A, B, C]))).toEqual(id);
    expect(assignIds('sub-2', [], [A])[0]?.id).not.toBe(id['🇩🇪 Germany']);
  });

  it('the endpoint match wins over a name match elsewhere in the list', () => {
    // C now carries A's name while A is gone: C keeps C's id, and nothing takes A's.
    const result = assignIds(SUB, first, [{ ...C, name: A.name }, B]);
    expect(result.map((s) => s.id)).toEqual([id['🇫🇮 Finland'], id['🇳🇱 Netherlands']]);
  });
});

describe('assignIds: duplicates', () => {
  const dupA = { ...A };
  const first = assignIds(SUB, [], [A, dupA, B]);

  it('two identical entries get distinct ids, deterministically', () => {
    expect(first[0]?.id).not.toBe(first[1]?.id);
    expect(assignIds(SUB, [], [A, dupA, B]).map((s) => s.id)).toEqual(first.map((s) => s.id));
  });

  it('the nth occurrence matches the nth occurrence after a reorder', () => {
    const reordered = assignIds(SUB, first, [B, A, dupA]);
    expect(reordered.map((s) => s.id)).toEqual([first[2]?.id, first[0]?.id, first[1]?.id]);
  });

  it('dropping one duplicate keeps the first id; duplicates by name match in order', () => {
    expect(assignIds(SUB, first, [A, B]).map((s) => s.id)).toEqual([first[0]?.id, first[2]?.id]);
    const sameNames = assignIds(SUB, [], [trojan('Server', 'a.example.com', 'x'), trojan('Server', 'b.example.com', 'y')]);
    const reissued = assignIds(SUB, sameNames, [trojan('Server', 'a.example.com', 'x2'), trojan('Server', 'b.example.com', 'y2')]);
    expect(reissued.map((s) => s.id)).toEqual(sameNames.map((s) => s.id));
  });

  it('a derived id already held by a renamed server is not handed out twice', () => {
    // A's credential is re-issued (A keeps its id by name); later an entry with A's old endpoint
    // appears under a new name: the id derived from that endpoint is A's, so it gets another.
    const original = assignIds(SUB, [], [A]);
    const rotated = assignIds(SUB, original, [{ ...A, password: 'rotated' }]);
    expect(rotated[0]?.id).toBe(original[0]?.id);
    const later = assignIds(SUB, rotated, [{ ...A, password: 'rotated' }, { ...A, name: 'Old A' }]);
    expect(later[0]?.id).toBe(original[0]?.id);
    expect(later[1]?.id).not.toBe(original[0]?.id);
    expect(assignIds(SUB, rotated, [{ ...A, password: 'rotated' }, { ...A, name: 'Old A' }])[1]?.id).toBe(later[1]?.id);
  });

  it('uses the injected id maker for new servers and never repeats an id', () => {
    const ids = ['x', 'x', 'y', 'z'];
    const result = assignIds(SUB, [], [A, B, C], () => ids.shift() as string);
    expect(result.map((s) => s.id)).toEqual(['x', 'y', 'z']);
  });
});

describe('assignIds: declared IPv6 support', () => {
  it('keeps a server\'s ipv6 declaration through identity assignment and updates it with the list', () => {
    const first = assignIds(SUB, [], [{ ...A, ipv6: true }, { ...B, ipv6: false }, C]);
    expect(first.map((s) => s.ipv6)).toEqual([true, false, undefined]);
    const second = assignIds(SUB, first, [{ ...A, ipv6: false }, B, { ...C, ipv6: true }]);
    expect(second.map((s) => [s.id, s.ipv6])).toEqual([
      [first[0]?.id, false],
      [first[1]?.id, undefined],
      [first[2]?.id, true],
    ]);
  });
});

describe('assignIds: chains', () => {
  it('resolves viaName to the id of the named server in the same list', () => {
    const entry = vless('entry', 'entry.example.com', 'a7e505a9-d63f-48ac-92f3-85ebcd7d7018');
    const exit = { ...trojan('exit', 'exit.example.com', 'pw'), viaName: 'entry' };
    const [resolvedExit, resolvedEntry] = assignIds(SUB, [], [exit, entry]);
    expect(resolvedExit?.via).toBe(resolvedEntry?.id);
    expect(resolvedEntry?.via).toBeUndefined();
  });

  it('an unknown name leaves the server without via (its viaName stays to show what was meant)', () => {
    const [server] = assignIds(SUB, [], [{ ...A, viaName: 'nowhere' }]);
    expect(server?.via).toBeUndefined();
    expect(server?.viaName).toBe('nowhere');
  });
});
