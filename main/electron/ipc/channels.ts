import type { EventName, InvokeChannel } from '../../../shared/ipc/contract';

/**
 * Electron channel names derived from the contract: `vpn:<operation>` for requests and
 * `vpn:event:<name>` for what the engine pushes. The prefix keeps them apart from anything a
 * library might register.
 */
export const INVOKE_PREFIX = 'vpn:';
export const EVENT_PREFIX = 'vpn:event:';

export const invokeChannelName = (channel: InvokeChannel): string => `${INVOKE_PREFIX}${channel}`;
export const eventChannelName = (event: EventName): string => `${EVENT_PREFIX}${event}`;

/** The name the preload exposes the API under: `window.vpn`. */
export const EXPOSED_API_NAME = 'vpn';
