import { describe, expect, it } from 'vitest';
import type { GroupMembers } from '../../../shared/settings';
import { type GroupCandidate, groupMembers } from './members';

const servers: GroupCandidate[] = [
  { id: 'a1', subscriptionId: 'A', exitCountry: 'US' },
  { id: 'a2', subscriptionId: 'A', exitCountry: 'DE' },
  { id: 'a3', subscriptionId: 'A', exitCountry: null },
  { id: 'b1', subscriptionId: 'B', exitCountry: 'us' },
  { id: 'b2', subscriptionId: 'B', exitCountry: 'NL' },
];

describe('groupMembers', () => {
  const cases: [string, GroupMembers, string[]][] = [
    ['by exit country, in list order, whatever case the IP-info service wrote', { by: 'country', countries: ['US'] }, ['a1', 'b1']],
    ['several countries', { by: 'country', countries: ['NL', 'DE'] }, ['a2', 'b2']],
    ['a server whose exit is not known yet is no member', { by: 'country', countries: ['FR'] }, []],
    ['by subscription', { by: 'subscription', subscriptionIds: ['B'] }, ['b1', 'b2']],
    ['a subscription that is gone adds nothing', { by: 'subscription', subscriptionIds: ['Z', 'A'] }, ['a1', 'a2', 'a3']],
    ['by hand, in the order named, once each, gone ones left out', { by: 'servers', serverIds: ['b2', 'gone', 'a1', 'b2'] }, ['b2', 'a1']],
  ];
  it.each(cases)('%s', (_, members, expected) => {
    expect(groupMembers(members, servers)).toEqual(expected);
  });
});
