import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { cspMetaTag } from '../shared/security/csp';

/**
 * The built page carries the app's Content-Security-Policy as a meta tag: under Electron it loads
 * from file://, where response headers may not apply. Only in builds: the dev server's React
 * refresh preamble is an inline script the policy would block.
 */
const contentSecurityPolicy: Plugin = {
  name: 'steadfast-csp-meta',
  apply: 'build',
  transformIndexHtml: (html) => html.replace('<meta charset="UTF-8" />', `<meta charset="UTF-8" />\n    ${cspMetaTag()}`),
};

// The renderer is served from file:// under Electron and from the headless host's root, so every
// asset URL is relative (`base: './'`). Paths are resolved from this file, not from the caller's
// working directory, so `vite build --config renderer/vite.config.ts` works from anywhere.
const here = decodeURIComponent(new URL('.', import.meta.url).pathname).replace(/^\/([A-Za-z]:\/)/, '$1');

export default defineConfig({
  root: here,
  base: './',
  plugins: [react(), contentSecurityPolicy],
  build: {
    outDir: `${here}../dist/renderer`,
    emptyOutDir: true,
    target: 'chrome120',
    sourcemap: true,
    chunkSizeWarningLimit: 900,
    // The fonts stay files of the build: a data: URL is no source the Content-Security-Policy allows.
    assetsInlineLimit: (file) => (/\.(woff2?|ttf|otf)$/.test(file) ? false : undefined),
  },
});
