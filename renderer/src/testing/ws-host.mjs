// Test-only: a real WebSocket server on loopback that speaks the contract's framing, so the
// browser client is tested against real sockets. Plain JavaScript on purpose: the renderer's
// TypeScript project has no Node types, and this file runs only inside vitest (Node).
import { WebSocket, WebSocketServer } from 'ws';

/**
 * @param {{ answer: (channel: string, payload: unknown) => Promise<unknown> | unknown }} options
 */
export async function startWsHost(options) {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  const received = [];
  let hold = false;
  const held = [];
  const answer = async (socket, message) => {
    try {
      const value = await options.answer(message.channel, message.payload);
      socket.send(JSON.stringify({ kind: 'result', id: message.id, ok: true, value }));
    } catch (error) {
      // As the headless host answers: the words, and the refusal's code when the error has one.
      const code = error !== null && typeof error === 'object' && 'code' in error ? { code: error.code } : {};
      socket.send(JSON.stringify({ kind: 'result', id: message.id, ok: false, error: error instanceof Error ? error.message : String(error), ...code }));
    }
  };
  server.on('connection', (socket, request) => {
    // As the headless host does for a client that asks: the snapshot as the first frame.
    if (new URL(request.url ?? '/', 'ws://host').searchParams.get('snapshot') === 'on-open') {
      void Promise.resolve(options.answer('getSnapshot', {})).then((payload) => socket.send(JSON.stringify({ kind: 'event', event: 'snapshot', payload })));
    }
    socket.on('message', (data) => {
      const message = JSON.parse(String(data));
      received.push({ ...message, url: request.url });
      if (hold) held.push(() => answer(socket, message));
      else void answer(socket, message);
    });
  });
  return {
    url: `ws://127.0.0.1:${port}/ws?token=t0k`,
    received,
    connections: () => server.clients.size,
    /** Stops answering (calls stay pending) until release(). */
    holdAnswers() {
      hold = true;
    },
    release() {
      hold = false;
      for (const run of held.splice(0)) run();
    },
    broadcast(event, payload) {
      for (const client of server.clients) client.send(JSON.stringify({ kind: 'event', event, payload }));
    },
    sendRaw(text) {
      for (const client of server.clients) client.send(text);
    },
    /** Drops every client's connection, as a host restart or a network blip would. */
    dropAll() {
      for (const client of server.clients) client.terminate();
    },
    close() {
      for (const client of server.clients) client.terminate();
      return new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

/**
 * A browser-style WebSocket for the client under test (ws implements onopen / onmessage /
 * onclose / readyState like a browser). jsdom's own WebSocket cannot dispatch its events under
 * vitest's globals, so the real socket comes from ws.
 */
export function createNodeSocket(url) {
  return new WebSocket(url);
}
