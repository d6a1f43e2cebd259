import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The renderer is served from file:// under Electron and from the headless host's root, so every
// asset URL is relative (`base: './'`). Paths are resolved from this file, not from the caller's
// working directory, so `vite build --config renderer/vite.config.ts` works from anywhere.
const here = decodeURIComponent(new URL('.', import.meta.url).pathname).replace(/^\/([A-Za-z]:\/)/, '$1');

export default defineConfig({
  root: here,
  base: './',
  plugins: [react()],
  build: {
    outDir: `${here}../dist/renderer`,
    emptyOutDir: true,
    target: 'chrome120',
    sourcemap: true,
    chunkSizeWarningLimit: 900,
  },
});
