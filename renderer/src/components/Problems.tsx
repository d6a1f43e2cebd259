import { useEffect, useId, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { AppProblem } from '../../../shared/domain/problem';
import { problemText } from '../i18n/problem';
import { useFormat } from '../hooks/useFormat';
import { useNow } from '../hooks/useNow';
import { useAppStore } from '../store/context';
import { selectProblemsShown } from '../store/problems';
import { EngineDetails } from './EngineDetails';
import { ErrorIcon, WarningIcon } from './icons';

/** The kill switch left in force by an earlier run: the one way out is the user's own "turn off". */
function TurnOffKillSwitch() {
  const { t } = useTranslation();
  const saveSettings = useAppStore((s) => s.saveSettings);
  return (
    <button type="button" className="button problem-action" onClick={() => void saveSettings({ killSwitch: false })}>
      {t('killSwitch.turnOff')}
    </button>
  );
}

/** The time of a problem: the clock time today, the date too when it is older (the app runs for days). */
function ProblemTime({ at, now }: { at: number; now: number }) {
  const format = useFormat();
  const sameDay = new Date(at).toDateString() === new Date(now).toDateString();
  return (
    <time className="problem-time" dateTime={new Date(at).toISOString()} title={format.dateTime(at)}>
      {sameDay ? format.time(at) : format.dateTime(at)}
    </time>
  );
}

function ProblemItem({ problem, now, onDismiss, buttonRef }: {
  problem: AppProblem;
  now: number;
  /** `hadFocus`: the button had the keyboard focus when it was pressed. */
  onDismiss(hadFocus: boolean): void;
  buttonRef(button: HTMLButtonElement | null): void;
}) {
  const { t } = useTranslation();
  const format = useFormat();
  const messageId = useId();
  return (
    <li className={`problem problem-${problem.severity}`}>
      {/* An error is announced at once; a warning waits for a pause in what is being read. */}
      <div className="problem-body" role={problem.severity === 'error' ? 'alert' : 'status'}>
        <span className="problem-label">
          {problem.severity === 'error' ? <ErrorIcon /> : <WarningIcon />}
          <strong className="problem-severity">{t(`problems.${problem.severity}`)}</strong>
          <ProblemTime at={problem.at} now={now} />
        </span>
        <p className="problem-message" id={messageId}>
          {problemText(t, format, problem.topic)}
        </p>
        <EngineDetails text={problem.detail} className="problem-details" />
      </div>
      {problem.topic.kind === 'kill-switch-left' && <TurnOffKillSwitch />}
      <button type="button" ref={buttonRef} className="button problem-dismiss" aria-describedby={messageId} onClick={(event) => onDismiss(event.currentTarget === document.activeElement)}>
        {t('common.dismiss')}
      </button>
    </li>
  );
}

/**
 * What the app needs the user to know (a file set aside, a failed save, no core), under the top
 * bar until dismissed. Dismissing asks the host; the problem leaves when the host's list drops it.
 */
export function Problems() {
  const problems = useAppStore(selectProblemsShown);
  return problems.length === 0 ? null : <ProblemList problems={problems} />;
}

/** A keyboard user who dismissed one problem lands on the next one's button, not at the page's start. */
function ProblemList({ problems }: { problems: AppProblem[] }) {
  const { t } = useTranslation();
  const dismiss = useAppStore((s) => s.dismissProblem);
  const now = useNow(60_000, problems);
  const headingId = useId();
  const buttons = useRef(new Map<string, HTMLButtonElement>());
  /** Where the dismissed problem stood, if its button had the focus. */
  const refocusAt = useRef<number | null>(null);

  useEffect(() => {
    const index = refocusAt.current;
    refocusAt.current = null;
    if (index === null) return;
    // The focus is still somewhere in the page (another problem left, not this one): leave it.
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    const next = problems[Math.min(index, problems.length - 1)];
    if (next) buttons.current.get(next.id)?.focus();
  }, [problems]);

  return (
    <section className="problems" aria-labelledby={headingId}>
      <h2 id={headingId} className="problems-heading">
        {t('problems.heading')}
      </h2>
      <ul>
        {problems.map((problem, index) => (
          <ProblemItem
            key={problem.id}
            problem={problem}
            now={now}
            buttonRef={(button) => {
              if (button) buttons.current.set(problem.id, button);
              else buttons.current.delete(problem.id);
            }}
            onDismiss={(hadFocus) => {
              refocusAt.current = hadFocus ? index : null;
              void dismiss(problem.id);
            }}
          />
        ))}
      </ul>
    </section>
  );
}
