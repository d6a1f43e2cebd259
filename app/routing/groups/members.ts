/**
 * A group's members among the servers of the day (pure; members.test.ts): by the exit country the
 * monitor learnt (a server not yet measured is no member until it is), by subscription, or the
 * servers named by hand that still exist. In the user's list order, or the order they named them.
 */
import type { ServerId, SubscriptionId } from '../../../shared/domain/server';
import type { GroupMembers } from '../../../shared/settings';

export interface GroupCandidate {
  id: ServerId;
  subscriptionId: SubscriptionId;
  /** Its exit's country as the monitor's IP-info found it (ISO 3166 alpha-2), or null while unknown. */
  exitCountry: string | null;
}

export function groupMembers(members: GroupMembers, servers: readonly GroupCandidate[]): ServerId[] {
  switch (members.by) {
    case 'country': {
      const countries = new Set(members.countries);
      return servers.filter((s) => s.exitCountry !== null && countries.has(s.exitCountry.toUpperCase())).map((s) => s.id);
    }
    case 'subscription': {
      const chosen = new Set(members.subscriptionIds);
      return servers.filter((s) => chosen.has(s.subscriptionId)).map((s) => s.id);
    }
    case 'servers': {
      const present = new Set(servers.map((s) => s.id));
      return [...new Set(members.serverIds)].filter((id) => present.has(id));
    }
  }
}
