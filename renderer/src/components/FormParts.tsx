import type { ReactNode, Ref } from 'react';
import { useTranslation } from 'react-i18next';
import type { WireRefusal } from '../../../shared/ipc/answer';
import { refusalText } from '../i18n/refusal';
import { EngineDetails } from './EngineDetails';

/** A dialog's error in words, read out by screen readers as soon as it appears; nothing when there is none. */
export function FormError({ children }: { children: ReactNode }) {
  if (children === null || children === undefined || children === false || children === '') return null;
  return (
    <p className="form-error" role="alert">
      {children}
    </p>
  );
}

/**
 * A refused request in a dialog: the sentence for its code in the user's language with the host's
 * English words as details, or the host's words alone when it named no code. `what` names what
 * failed before it ("Could not save the marks: …").
 */
export function RefusalError({ refusal, what }: { refusal: WireRefusal | null; what?: string }) {
  const { t } = useTranslation();
  if (!refusal) return null;
  const text = refusalText(t, refusal);
  return (
    <>
      <FormError>{what ? `${what}: ${text}` : text}</FormError>
      {refusal.code && <EngineDetails text={refusal.error} className="form-error-details" />}
    </>
  );
}

/** A form dialog's footer: Cancel, and the submit button, which says `busyLabel` while the request runs. */
export function FormFooter({ onCancel, submitLabel, busyLabel, busy }: { onCancel: () => void; submitLabel: string; busyLabel: string; busy: boolean }) {
  const { t } = useTranslation();
  return (
    <footer className="modal-footer">
      <button type="button" className="button" onClick={onCancel}>
        {t('common.cancel')}
      </button>
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? busyLabel : submitLabel}
      </button>
    </footer>
  );
}

/** A subscription's User-Agent override (some panels pick their format by it): left to right, never spell-checked. */
export function UserAgentField({
  value,
  onChange,
  invalid = false,
  inputRef,
}: {
  value: string;
  onChange: (value: string) => void;
  invalid?: boolean;
  inputRef?: Ref<HTMLInputElement>;
}) {
  const { t } = useTranslation();
  return (
    <label className="field">
      <span>{t('desktop.userAgent.label')}</span>
      <input
        ref={inputRef}
        type="text"
        dir="ltr"
        spellCheck={false}
        autoComplete="off"
        value={value}
        aria-invalid={invalid}
        aria-describedby="user-agent-hint"
        onChange={(event) => onChange(event.target.value)}
      />
      <span className="hint" id="user-agent-hint">
        {t('desktop.userAgent.hint')}
      </span>
    </label>
  );
}
