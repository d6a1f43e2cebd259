import { describe, expect, it } from 'vitest';
import { parseRequest } from '../../shared/ipc/contract';
import { assertTarget } from './assert-target';
import { ensureClearError } from './checks/violation';
import { PROTOTYPE_NAMES, sizeProbes } from './generators';

describe('scenario files, settings and IPC requests under fuzzing', () => {
  // Runnable (finite times, world in order) or refused with one error that names the field.
  it('scenario files', () => assertTarget('scenario', 400, [JSON.stringify({ subscriptions: [{ id: 'A', servers: ['a'] }], current: 'a', until: `${'9'.repeat(400)}h` })]), 30_000);

  it('settings patches against the schema', () => assertTarget('settings-schema', 500), 30_000);

  // Applied whole (valid, frozen, on disk) or refused whole with the field named.
  it("settings patches through the store's update path", () => assertTarget('settings-store', 300), 30_000);

  // A validated request, or an Error naming the channel and the field; never a TypeError.
  it('IPC requests for every channel, and names that are not channels', () =>
    assertTarget('ipc-requests', 1500, PROTOTYPE_NAMES.map((channel) => ({ channel, payload: {} }))), 30_000);

  it('WebSocket frames against the framing schema', () => assertTarget('wire-frames', 800), 30_000);

  it.each(sizeProbes())('$channel $field: accepted at its size limit, refused one over it with a clear error', ({ channel, field, atLimit, overLimit }) => {
    expect(() => parseRequest(channel as never, atLimit)).not.toThrow();
    let error: unknown;
    try {
      parseRequest(channel as never, overLimit);
    } catch (e) {
      error = e;
    }
    ensureClearError(error, `invalid ${channel} request: ${field}: `);
  });
});
