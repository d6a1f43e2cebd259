/** A run's progress bar (Test all, the speed test): its fill and its words, for the eye and for screen readers. */
export function ProgressTrack({ label, done, total, fraction, text }: { label: string; done: number | null; total: number | null; fraction: number; text: string }) {
  return (
    <>
      <span className="progress-track" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={total ?? undefined} aria-valuenow={done ?? undefined} aria-valuetext={text}>
        {/* Scaled, not resized: a transform is the compositor's work, a width change lays the page out again every frame of its transition. */}
        <span className="progress-fill" style={{ transform: `scaleX(${fraction})` }} />
      </span>
      <span className="progress-text" aria-hidden="true">
        {text}
      </span>
    </>
  );
}
