import { technicalRuns } from '../format/technical';

/**
 * Translated text whose addresses, CIDRs, URLs, ports and numbers are each isolated left to right
 * (format/technical.ts), so a right-to-left sentence keeps them whole and in their order.
 */
export function TechnicalText({ text }: { text: string }) {
  return (
    <>
      {technicalRuns(text).map((run, i) =>
        run.technical ? (
          <bdi key={i} dir="ltr" className="technical">
            {run.text}
          </bdi>
        ) : (
          run.text
        ),
      )}
    </>
  );
}
