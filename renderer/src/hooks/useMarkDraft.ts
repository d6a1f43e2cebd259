import { useState } from 'react';
import type { ServerId } from '../../../shared/domain/server';
import type { WireRefusal } from '../../../shared/ipc/answer';
import type { ActionResult } from '../store/request';

/**
 * The draft of an exclusion dialog: the marks as the user ticks them, sent only on Done. Marks of
 * servers no longer in `ids` (they left the subscription or the group) are sent back as they were,
 * since they may come back. A refusal stays on screen with the dialog open; success closes it.
 */
export function useMarkDraft(o: {
  initial: readonly ServerId[];
  ids: readonly ServerId[];
  save: (marks: ServerId[]) => Promise<ActionResult<unknown>>;
  close: () => void;
}) {
  const [marked, setMarked] = useState<Set<ServerId>>(() => new Set(o.initial));
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<WireRefusal | null>(null);

  const toggle = (id: ServerId, mark: boolean) =>
    setMarked((previous) => {
      const next = new Set(previous);
      if (mark) next.add(id);
      else next.delete(id);
      return next;
    });

  const done = async () => {
    setSaving(true);
    setError(null);
    const kept = o.initial.filter((id) => !o.ids.includes(id));
    const result = await o.save([...o.ids.filter((id) => marked.has(id)), ...kept]);
    setSaving(false);
    if (result.ok) o.close();
    else setError(result);
  };

  return { marked, toggle, saving, error, done };
}
