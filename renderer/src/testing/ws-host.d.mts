import type { SocketLike } from '../client/websocket';

export interface WsHost {
  url: string;
  received: { kind: string; id: number; channel: string; payload: unknown; url: string }[];
  connections(): number;
  holdAnswers(): void;
  release(): void;
  broadcast(event: string, payload: unknown): void;
  sendRaw(text: string): void;
  dropAll(): void;
  close(): Promise<void>;
}

export function startWsHost(options: { answer: (channel: string, payload: unknown) => Promise<unknown> | unknown }): Promise<WsHost>;

export function createNodeSocket(url: string): SocketLike;
