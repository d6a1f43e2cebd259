/** A problem as it arises: what it is about, and the engine's sentence saying it in English. */
export interface Problem {
  topic: ProblemTopic;
  /** Paths, the system's reason: what the log says and the window shows beside the topic's words. */
  detail: string;
}

/**
 * Something the user should know that is not an answer to what they just did: a file that was
 * unreadable at start (set aside, the last good copy used), a save that failed (a full disk), no
 * core found, system-wide capture not in force. Shown until dismissed; the app keeps working meanwhile.
 *
 * The window lists it with when it was raised, how grave it is, and an id to dismiss it by; it
 * words it from its topic in the user's language, the detail shown beside.
 */
export interface AppProblem extends Problem {
  id: string;
  at: number;
  severity: 'warning' | 'error';
}

export type ProblemTopic =
  /** A file of the data folder was unreadable at start; it was set aside. */
  | { kind: 'file-unreadable'; file: string; recovered: 'backup' | 'empty' }
  /** A save failed (full disk, permissions); the state is kept in memory. */
  | { kind: 'save-failed'; file: string }
  /** No core was found, or the one found could not be used: nothing can connect. */
  | { kind: 'no-core' }
  /** System-wide mode is on but its capture is not in force (the helper failed or stopped): apps that ignore the proxy go around the tunnel. */
  | { kind: 'system-wide' }
  /** The kill switch was found in force at start (an earlier run left it so, by design): offered "turn off". */
  | { kind: 'kill-switch-left'; since: number | null }
  /** The daily test budget is spent: only delay probes of the current server and Auto's next candidates run. */
  | { kind: 'test-budget'; capBytesPerDay: number }
  /**
   * Programs of the per-app list that system-wide mode cannot tell apart on this machine (Linux's
   * TPROXY capture without cgroup v2): they go as every other program does.
   */
  | { kind: 'per-app-unmatched'; entries: string[] };
