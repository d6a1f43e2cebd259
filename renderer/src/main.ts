/**
 * The window's entry, kept small on purpose: it opens the link to the app before the browser
 * has loaded and run the app's own code (React, the components, the styles, the words: most of
 * the first bundle), so the host's snapshot is made and on its way meanwhile. With 5,000 servers
 * the snapshot's trip was most of the time to the first rows when the link opened only after all
 * of that had run.
 */
import { pickClient, type PickedClient } from './client/pick';

let picked: PickedClient | null = null;
let failure: unknown = null;
try {
  picked = pickClient(window);
} catch (error) {
  failure = error;
}

import('./app-start').then(
  ({ startApp, showFatal }) => (picked ? startApp(picked) : showFatal(failure)),
  (error: unknown) => {
    // The app's code could not be loaded: no words to say it in but these.
    document.getElementById('root')!.textContent = `Steadfast VPN could not load its window: ${error instanceof Error ? error.message : String(error)}`;
  },
);
