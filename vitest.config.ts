import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// Four kinds of test, each its own project so `npm test` can run them in order:
// unit (node), unit-dom (the renderer in jsdom), integration (real processes in the lab),
// e2e (the built UI in Debian's Chromium through the headless host).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          environment: 'node',
          include: ['{app,main,shared,scripts,e2e}/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/*.e2e.test.ts', 'node_modules/**'],
        },
      },
      {
        plugins: [react()],
        test: {
          name: 'unit-dom',
          environment: 'jsdom',
          include: ['renderer/**/*.test.{ts,tsx}'],
          // Without it a stylesheet imported `?raw` reads as '' and the tests of styles.css test nothing.
          css: { include: [/styles\.css/] },
        },
      },
      {
        test: {
          name: 'integration',
          environment: 'node',
          include: ['{app,main,e2e}/**/*.int.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Two cores: lab-backed files run one at a time so timings stay meaningful.
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['e2e/**/*.e2e.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
