/**
 * Test-only: the preview page's stand-in host. Loaded before the app on the preview page (see
 * preview.mjs), it exposes a fake `window.vpn` over the sample world, the way Electron's preload
 * exposes the real one. Query parameters choose the language, theme and world size:
 * `?lang=fa&theme=dark&servers=5000`. Never part of the product build.
 */
import { bridgeOver } from '../../../shared/ipc/answer';
import type { Language } from '../../../shared/settings';
import { createFakeClient } from './fake-client';
import { largeSnapshot, sampleSnapshot } from './sample-world';

const params = new URLSearchParams(location.search);
const now = Date.now();
const count = Number(params.get('servers') ?? 0);
const base = count > 0 ? largeSnapshot(now, count) : sampleSnapshot(now);
const snapshot = {
  ...base,
  settings: {
    ...base.settings,
    language: (params.get('lang') ?? 'en') as Language,
    theme: (params.get('theme') ?? 'light') as 'light' | 'dark',
  },
};
const client = createFakeClient(snapshot);
// As Electron's preload exposes it: answers, a refusal with its code (shared/ipc/answer.ts).
window.vpn = bridgeOver(client);

// A little life: traffic every second while connected.
let tick = 0;
setInterval(() => {
  tick += 1;
  if (client.snapshot.connection.state !== 'connected') return;
  client.emit('traffic', { at: Date.now(), intervalMs: 1000, upBytes: 42_000 + (tick % 5) * 3000, downBytes: 1_350_000 + (tick % 7) * 90_000 });
}, 1000);
