/**
 * The actions on one server, as the window's row menu and the tray's server submenus offer them
 * (issue 28, item 6): which there are, in which order, which can run and why not; and the list of
 * excluded servers after Exclude or Include, the same list the exclude dialog saves.
 */
export type RowMenuAction = 'connect' | 'test' | 'speed-test' | 'exclude' | 'include' | 'share' | 'details';

export interface RowMenuFacts {
  /** The row is the server carrying the traffic (or coming up). */
  isCurrent: boolean;
  /** Auto will not switch to it (the user excluded it). */
  isExcluded: boolean;
  /** Excluding it would leave Auto no server in its subscription. */
  isLastAvailable: boolean;
  /** A test of it is under way. */
  testing: boolean;
  /** A speed test is under way (of any servers: one run at a time); absent: none. */
  speedTestRunning?: boolean;
}

export interface RowMenuItem {
  action: RowMenuAction;
  enabled: boolean;
  /** Why it cannot run, as a catalogue key (shown as its tooltip). */
  why?: string;
}

/** Connect, Test, Speed test, Exclude from Auto or Include, Share, Details: always in this order. */
export function rowMenuItems(facts: RowMenuFacts): RowMenuItem[] {
  const exclusion: RowMenuItem = facts.isExcluded
    ? { action: 'include', enabled: true }
    : facts.isLastAvailable
      ? { action: 'exclude', enabled: false, why: 'exclude.lastUnmarked' }
      : { action: 'exclude', enabled: true };
  return [
    { action: 'connect', enabled: !facts.isCurrent },
    { action: 'test', enabled: !facts.testing },
    facts.speedTestRunning ? { action: 'speed-test', enabled: false, why: 'rowMenu.speedTestRunning' } : { action: 'speed-test', enabled: true },
    exclusion,
    { action: 'share', enabled: true },
    { action: 'details', enabled: true },
  ];
}

/** The excluded list after the menu's Exclude or Include, as the exclude dialog would save it. */
export function excludedAfter(excluded: readonly string[], serverId: string, action: 'exclude' | 'include'): string[] {
  const rest = excluded.filter((id) => id !== serverId);
  return action === 'exclude' ? [...rest, serverId] : rest;
}
