/**
 * Something the user should know that is not an answer to what they just did: a file that was
 * unreadable at start (set aside, the last good copy used), a save that failed (a full disk), no
 * core found. Shown until dismissed; the app keeps working meanwhile.
 */
export interface AppProblem {
  id: string;
  at: number;
  severity: 'warning' | 'error';
  message: string;
}
