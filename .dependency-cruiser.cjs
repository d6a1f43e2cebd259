// The import rules lint cannot see file by file: no cycles anywhere, `testing/` folders only from
// tests, and inside app/ an allow-list per folder (VS Code's layer checker is the model). Run by
// `npm run lint`; e2e/lint/layers.test.ts proves each kind of rule refuses a violation.
const TEST_FILE = '(\\.(int\\.|e2e\\.)?test\\.tsx?$|/testing/|int-support\\.ts$)';

/** What each folder of app/ may import inside app/ (shared/ and npm packages are always allowed). */
const APP_LAYERS = {
  clock: [],
  events: [],
  paths: [],
  log: [],
  storage: ['process'],
  process: [],
  'virtual-clock': ['clock'],
  core: ['process'],
  network: ['clock', 'events'],
  settings: ['events', 'storage'],
  subscriptions: ['clock', 'events', 'log', 'storage'],
  imports: ['clock', 'events', 'log', 'subscriptions'],
  tunnel: ['clock', 'core', 'events', 'log', 'process'],
  monitor: ['clock', 'events', 'log', 'storage', 'tunnel'],
  reachability: ['clock', 'core', 'events', 'log', 'tunnel'],
  auto: ['clock', 'events', 'log', 'storage', 'virtual-clock'],
  'system-proxy': ['log', 'storage', 'process'],
  'system-wide': ['core', 'events', 'log', 'storage', 'tunnel', 'process'],
  routing: ['clock', 'core', 'events', 'log', 'storage'],
  // Helpers for tests (fake clock, polling); imported only by tests, by the rule below.
  testing: ['virtual-clock'],
  sharing: [],
  engine: ['*'],
};

const folder = (name) => `^app/${name}(/|\\.ts$)`;

const layerRules = Object.entries(APP_LAYERS)
  .filter(([, allowed]) => !allowed.includes('*'))
  .map(([name, allowed]) => ({
    name: `app-${name}-layer`,
    comment: `app/${name} may import only ${allowed.length > 0 ? allowed.map((a) => `app/${a}`).join(', ') : 'nothing else in app/'} (.dependency-cruiser.cjs APP_LAYERS)`,
    severity: 'error',
    from: { path: folder(name), pathNot: TEST_FILE },
    to: { path: '^app/', pathNot: [folder(name), ...allowed.map(folder)] },
  }));

// A folder of app/ that APP_LAYERS does not name has no allow-list, so it may import nothing else
// in app/ until it is given one: a new folder cannot reach into the others unnoticed.
const listedFolders = Object.keys(APP_LAYERS).join('|');
const unlistedFolder = {
  name: 'app-folder-without-layer',
  comment: 'This folder of app/ has no entry in APP_LAYERS (.dependency-cruiser.cjs): give it one before it imports the rest of app/.',
  severity: 'error',
  from: { path: `^app/(?!(?:${listedFolders})(?:/|\\.ts$))([^/]+)/`, pathNot: TEST_FILE },
  to: { path: '^app/', pathNot: '^app/$1/' },
};

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle: the layers no longer read top to bottom.',
      severity: 'error',
      from: { pathNot: '^renderer/' },
      to: { circular: true },
    },
    {
      // The store's slices and the state type they make up name each other's types (zustand's
      // slice pattern); a cycle that runs through code is still refused.
      name: 'no-circular-renderer',
      comment: 'An import cycle through code in the renderer.',
      severity: 'error',
      from: { path: '^renderer/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'testing-only-from-tests',
      comment: 'Fakes and test worlds live in testing/ folders and are imported only by tests.',
      severity: 'error',
      from: { path: '^(app|main|shared|renderer)/', pathNot: TEST_FILE },
      to: { path: '/testing/' },
    },
    {
      name: 'reachability-uses-tunnel-entry',
      comment: "reachability/ uses the tunnel only through its public entry, app/tunnel/index.ts.",
      severity: 'error',
      from: { path: folder('reachability'), pathNot: TEST_FILE },
      to: { path: '^app/tunnel/', pathNot: '^app/tunnel/index\\.ts$' },
    },
    {
      name: 'shell-loads-engine-bundle',
      comment: 'The Electron shell knows the engine by its type only: the engine is its own bundle, loaded at run time (main/electron/engine-loader.ts).',
      severity: 'error',
      from: { path: '^main/electron/', pathNot: TEST_FILE },
      to: { path: '^app/engine/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'engine-stays-below-hosts',
      comment: 'The engine never imports its hosts (main/), the UI (renderer/) or the test world (e2e/); its tests may use the lab.',
      severity: 'error',
      from: { path: '^app/', pathNot: TEST_FILE },
      to: { path: '^(main|renderer|e2e)/' },
    },
    ...layerRules,
    unlistedFolder,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|\\.tsbuild)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs'] },
  },
};
