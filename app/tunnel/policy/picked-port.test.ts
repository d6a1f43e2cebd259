import { describe, expect, it } from 'vitest';
import { pickedPortTaken } from './picked-port';

// What the tunnel controller said when Xray 26.3.27's API port was taken between pick and bind (the failover bench on a loaded machine).
const XRAY_TAKEN = (port: number) => `tunnel core exited while starting (exited with code 255): cannot listen on 127.0.0.1:${port} (listen tcp 127.0.0.1:${port}: bind: address already in use)`;

describe('pickedPortTaken', () => {
  it.each([
    // case, message, the ports the app picked, start again?
    ['the API port the app picked was taken', XRAY_TAKEN(43991), [43991], true],
    ['a carrier hop port it picked was taken', XRAY_TAKEN(40001), [43991, 40001], true],
    ["the user's own proxy port was taken: the user must hear it", XRAY_TAKEN(10809), [43991], false],
    ['an IPv6 listener', 'cannot listen on [::1]:43991 (listen tcp [::1]:43991: bind: address already in use)', [43991], true],
    ['the port is not allowed, not taken', 'cannot listen on 127.0.0.1:43991 (listen tcp 127.0.0.1:43991: bind: permission denied)', [43991], false],
    ['another start failure', 'tunnel core exited while starting (exited with code 23): failed to parse config', [43991], false],
    ['no port picked yet', XRAY_TAKEN(43991), [undefined], false],
  ] as const)('%s', (_case, message, picked, again) => {
    expect(pickedPortTaken(message, picked)).toBe(again);
  });
});
