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

/**
 * The entry (main.ts) loads the app's code with a dynamic import, so that the link to the host
 * opens first; the browser is told about that code and its styles in the page itself, so it
 * fetches and compiles them while the entry runs instead of after it. Only in builds.
 */
const preloadTheApp: Plugin = {
  name: 'steadfast-preload-app',
  apply: 'build',
  transformIndexHtml: {
    order: 'post',
    handler: (_html, context) => {
      const chunks = Object.values(context.bundle ?? {}).filter((output) => output.type === 'chunk');
      const app = chunks.find((chunk) => chunk.facadeModuleId?.endsWith('/src/app-start.tsx'));
      if (!app) throw new Error('the build has no app-start chunk to preload');
      const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
      // The app's chunk and every chunk it imports statically, in the order they are needed.
      const scripts: string[] = [];
      const styles = new Set<string>();
      const visit = (fileName: string) => {
        const chunk = byFile.get(fileName);
        if (!chunk || scripts.includes(fileName)) return;
        scripts.push(fileName);
        for (const css of chunk.viteMetadata?.importedCss ?? []) styles.add(css);
        chunk.imports.forEach(visit);
      };
      visit(app.fileName);
      const entry = context.chunk?.fileName;
      return [
        ...[...styles].map((href) => ({ tag: 'link', attrs: { rel: 'stylesheet', crossorigin: true, href: `./${href}` }, injectTo: 'head' as const })),
        ...scripts.filter((href) => href !== entry).map((href) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `./${href}` }, injectTo: 'head' as const })),
      ];
    },
  },
};

// The renderer is served from file:// under Electron and from the headless host's root, so every
// asset URL is relative (`base: './'`). Paths are resolved from this file, not from the caller's
// working directory, so `vite build --config renderer/vite.config.ts` works from anywhere.
const here = decodeURIComponent(new URL('.', import.meta.url).pathname).replace(/^\/([A-Za-z]:\/)/, '$1');

export default defineConfig({
  root: here,
  base: './',
  plugins: [react(), contentSecurityPolicy, preloadTheApp],
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
