import { useEffect, useState } from 'react';

/**
 * The current time, refreshed every `everyMs` (relative times and the timeline's end), and at
 * once whenever `refreshOn` changes (the timeline's latest event: drawn when it comes, not at the
 * clock's next tick).
 */
export function useNow(everyMs: number, refreshOn?: unknown): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const refresh = () => setNow(Date.now());
    if (refreshOn !== undefined) queueMicrotask(refresh);
    const timer = setInterval(refresh, everyMs);
    return () => clearInterval(timer);
  }, [everyMs, refreshOn]);
  return now;
}
