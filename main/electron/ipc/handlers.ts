import { type IpcMainInvokeEvent, ipcMain } from 'electron';
import type { Logger } from '../../../app/log/logger';
import { answerOf, type InvokeAnswer } from '../../../shared/ipc/answer';
import { INVOKE_CHANNELS, type InvokeChannel, parseRequest, type VpnClient } from '../../../shared/ipc/contract';
import { invokeChannelName } from './channels';

/** Why a request was refused before it reached the engine. */
export class IpcRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IpcRefusedError';
  }
}

export interface InvokeHandlerOptions {
  /** The engine (or anything with one async method per contract channel). */
  service: Omit<VpnClient, 'on'>;
  /** null = trusted; otherwise why the sender is refused (see sender.ts). */
  checkSender: (event: IpcMainInvokeEvent) => string | null;
  logger: Logger;
}

/**
 * Registers one `ipcMain.handle` per contract channel. Every request passes two gates before the
 * engine sees it: the sender must be the app's own page, and the payload must match the channel's
 * zod schema (its parsed, defaulted output is what the engine gets). A refusal at a gate rejects
 * the renderer's promise with a sentence and is logged without the payload. The engine's answer
 * crosses as an `InvokeAnswer`: Electron would flatten a thrown error to one string, and the
 * engine's refusal code must reach the page beside its words (the page's client throws it again).
 */
export function registerInvokeHandlers({ service, checkSender, logger }: InvokeHandlerOptions): () => void {
  for (const channel of INVOKE_CHANNELS) {
    ipcMain.handle(invokeChannelName(channel), (event, ...args: unknown[]) => handle(channel, event, args));
  }

  async function handle(channel: InvokeChannel, event: IpcMainInvokeEvent, args: unknown[]): Promise<InvokeAnswer> {
    const refusal = checkSender(event);
    if (refusal !== null) {
      logger.warn('IPC', `refused ${channel} from ${refusal}`);
      throw new IpcRefusedError(`${channel} refused: the request did not come from the app's own page`);
    }
    if (args.length !== 1) {
      logger.warn('IPC', `refused ${channel}: ${args.length} arguments instead of one request`);
      throw new IpcRefusedError(`invalid ${channel} request: expected exactly one request object`);
    }
    let request: unknown;
    try {
      request = parseRequest(channel, args[0]);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      logger.warn('IPC', `refused ${message}`);
      throw new IpcRefusedError(message);
    }
    const operation = service[channel] as (request: unknown) => Promise<unknown>;
    return answerOf(() => operation.call(service, request));
  }

  return () => {
    for (const channel of INVOKE_CHANNELS) ipcMain.removeHandler(invokeChannelName(channel));
  };
}
