/**
 * The Electron entry point, bundled to dist/main/electron.cjs (package.json "main") by
 * `npm run build:electron` (main/electron/build/). Everything here is paths and wiring; the behaviour lives in
 * desktop-app.ts and is tested there with a mocked Electron.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { app } from 'electron';
import { fileSink, LOG_LEVELS, type LogLevel, Logger, stderrSink } from '../../app/log/logger';
import { defaultDataDir } from '../../app/paths';
import { execRunner } from '../../app/system-proxy/exec-runner';
import { helperLaunchCommand } from '../../app/system-wide/linux/policy/elevation';
import { startDesktopApp } from './desktop-app';
import { loadEngineBundle } from './engine-loader';

// dist/main/ when bundled; the renderer, preload and icons are built next to it.
const distDir = join(__dirname, '..');
const dataDir = defaultDataDir();
mkdirSync(dataDir, { recursive: true, mode: 0o700 });

const level = (LOG_LEVELS as readonly string[]).includes(process.env.VPN_LOG_LEVEL ?? '') ? (process.env.VPN_LOG_LEVEL as LogLevel) : 'info';
const logger = new Logger({ level, sinks: [stderrSink, fileSink(join(dataDir, 'desktop.log'))] });

startDesktopApp({
  loadEngine: () => loadEngineBundle(join(distDir, 'main')),
  dataDir,
  resourcesDir: app.isPackaged ? process.resourcesPath : join(distDir, '..', 'resources'),
  rendererDir: join(distDir, 'renderer'),
  preloadPath: join(distDir, 'main', 'preload.cjs'),
  assetsDir: join(distDir, 'assets'),
  env: process.env,
  platform: process.platform,
  logger,
  systemProxy: { run: execRunner() },
  launch: { argv: process.argv, defaultApp: process.defaultApp === true, execPath: process.execPath },
  // The helper runs on Electron's own Node, through pkexec (the app itself never runs as root).
  captureHelper: (mode) =>
    helperLaunchCommand({
      euid: process.geteuid?.() ?? -1,
      execPath: process.execPath,
      execArgv: [],
      helperScript: join(distDir, 'main', 'capture-helper.cjs'),
      electron: true,
      mode,
    }),
});
