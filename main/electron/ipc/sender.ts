import type { IpcMainInvokeEvent, WebContents } from 'electron';
import { describeOrigin, isTrustedRendererUrl, type RendererSource } from '../security';

/**
 * Who may talk to the engine: the main frame of the app's own window, showing the app's own page.
 * Returns null when the sender is trusted, otherwise why not (for the log and the error; it names
 * an origin at most, never a payload).
 */
export function senderRefusal(
  event: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>,
  appWebContents: Pick<WebContents, 'id'> | null,
  source: RendererSource,
): string | null {
  if (!appWebContents) return 'the app window is not open';
  if (event.sender?.id !== appWebContents.id) return 'a window that is not the app window';
  const frame = event.senderFrame;
  if (!frame) return 'a page that has navigated away';
  if (frame.parent !== null) return `a sub-frame (${describeOrigin(frame.url)})`;
  if (!isTrustedRendererUrl(frame.url, source)) return describeOrigin(frame.url);
  return null;
}
