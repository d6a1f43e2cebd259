/**
 * Thrown when a config is asked for a server the core cannot run. The message is the sentence
 * shown to the user ("not supported by v2ray 4.34.0: REALITY needs Xray ≥ 1.8.0"); it names the
 * server, never its credentials.
 */
export class UnsupportedServerError extends Error {
  readonly reason: string;
  readonly serverName: string;
  constructor(serverName: string, reason: string) {
    super(`${serverName}: ${reason}`);
    this.name = 'UnsupportedServerError';
    this.reason = reason;
    this.serverName = serverName;
  }
}
