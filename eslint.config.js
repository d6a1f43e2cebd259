// Lint is where the architecture's layer rules live (docs: ../shared/design/architecture.md):
// shared/ imports nothing but zod, renderer/ never reaches into app/ or main/, only main/electron/
// imports electron, and policy files stay pure (no timers, clocks, randomness or I/O).
import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const NODE_BUILTINS = { group: ['node:*'], message: 'This layer runs without Node: keep Node APIs in app/ or main/.' };
const ELECTRON = { name: 'electron', message: 'Only main/electron/ may import electron.' };
const INTO = (folder, why) => ({ group: [`**/${folder}/**`, `${folder}/**`], message: why });

// What no engine file may import; the policy block below adds its own bans to these.
const ENGINE_BANS = [
  INTO('main', 'The engine never calls up into its hosts.'),
  INTO('renderer', 'The engine never imports the UI.'),
  INTO('e2e', 'The engine never imports the test world.'),
];

const restrictedIn = (paths = [], patterns = []) => ({
  'no-restricted-imports': ['error', { paths, patterns }],
});

export default tseslint.config(
  {
    ignores: ['node_modules/', 'dist/', 'release/', '.tsbuild/', '.cache/', 'coverage/', 'e2e/artifacts/', 'resources/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      eqeqeq: ['error', 'smart'],
    },
  },
  // Everyone but main/electron/: no electron.
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    ignores: ['main/electron/**'],
    rules: restrictedIn([ELECTRON], [INTO('renderer', 'The UI is reached through the IPC contract, not imported.')]),
  },
  // scripts/: the bundled fonts are cut to the window's own words, read from its catalogue and formatters.
  {
    files: ['scripts/**/*.{ts,mjs}'],
    rules: restrictedIn(
      [ELECTRON],
      [{ regex: '(^|/)renderer/(?!src/(i18n|format)(/|$))', message: 'Scripts read only the UI’s words and formatters (renderer/src/i18n, renderer/src/format).' }],
    ),
  },
  // shared/: pure TypeScript; zod is the only package it may use.
  {
    files: ['shared/**/*.ts'],
    ignores: ['shared/**/*.test.ts'],
    rules: restrictedIn(
      [ELECTRON],
      [
        NODE_BUILTINS,
        INTO('app', 'shared/ imports nothing of the app.'),
        INTO('main', 'shared/ imports nothing of the hosts.'),
        INTO('renderer', 'shared/ imports nothing of the UI.'),
        INTO('e2e', 'shared/ imports nothing of the tests.'),
        { regex: '^(?!\\.|zod$|zod/)', message: 'shared/ may import only zod and its own files.' },
      ],
    ),
  },
  // app/: the engine; never the hosts, the UI or the tests.
  {
    files: ['app/**/*.ts'],
    ignores: ['app/**/*.test.ts'],
    rules: restrictedIn([ELECTRON], ENGINE_BANS),
  },
  // Policy files: pure functions of their inputs (time and randomness are passed in).
  {
    files: ['app/**/policy/**/*.ts', 'app/**/*.policy.ts'],
    ignores: ['app/**/*.test.ts'],
    rules: {
      ...restrictedIn(
        [ELECTRON],
        [{ group: ['node:*', 'undici', 'ws', '@grpc/*'], message: 'Policy is pure: no I/O.' }, ...ENGINE_BANS],
      ),
      'no-restricted-globals': [
        'error',
        ...['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'fetch', 'process', 'performance'].map(
          (name) => ({ name, message: 'Policy is pure: timers, clocks and I/O belong to the runtime.' }),
        ),
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Policy is pure: take `now` as an argument.' },
        { object: 'Math', property: 'random', message: 'Policy is pure: take `random` as an argument.' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'Policy is pure: take `now` as an argument.' },
      ],
    },
  },
  // main/ hosts other than Electron's: no electron (covered above), no UI imports. A host's
  // integration test is left out: it starts the lab as a child process (spawnLab) to point the
  // host at, as a user points it at their servers.
  {
    files: ['main/**/*.ts'],
    ignores: ['main/electron/**', 'main/**/*.int.test.ts'],
    rules: restrictedIn([ELECTRON], [INTO('renderer', 'Hosts serve the built renderer; they never import it.'), INTO('e2e', 'Hosts never import the test world.')]),
  },
  // main/electron/: raw ipcMain / ipcRenderer only inside the contract wrappers; of the UI, only
  // the words' catalogue (the tray speaks the window's words: one i18n source).
  {
    files: ['main/electron/**/*.ts'],
    ignores: ['main/electron/ipc/**', 'main/electron/preload.ts', 'main/electron/**/*.test.ts'],
    rules: restrictedIn(
      [{ name: 'electron', importNames: ['ipcMain', 'ipcRenderer'], message: 'Use the typed contract wrappers in main/electron/ipc/.' }],
      [
        {
          regex: '(^|/)renderer/(?!src/i18n/catalogue$)',
          message: 'Hosts serve the built renderer; they never import it (its words’ catalogue, renderer/src/i18n/catalogue.ts, excepted).',
        },
      ],
    ),
  },
  // renderer/: browser code that talks only through the contract client.
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...restrictedIn(
        [ELECTRON],
        [
          NODE_BUILTINS,
          INTO('app', 'The UI talks to the engine only through the IPC contract.'),
          INTO('main', 'The UI talks to the hosts only through the IPC contract.'),
        ],
      ),
    },
  },
);
