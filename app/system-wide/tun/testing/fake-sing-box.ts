import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A stand-in for the sing-box binary (which cannot be installed here), as an executable file the
 * watchdog and the app run like the real one: `version` prints what sing-box 1.14 prints, `check`
 * reads the config, and `run -c FILE` listens on the config's loopback `mixed` inbound — as the
 * real one does once its tun inbound is up — until TERM. `behave()` makes the next run fail the
 * way sing-box does without the rights for its device, or hang before its inbounds are up.
 */
export interface FakeSingBox {
  path: string;
  dir: string;
  /** One entry per `run`: its pid and config path. */
  runs(): { pid: number; config: string }[];
  /** `fatal`: exits as sing-box does without rights for its device; `silent`: runs, never answers. */
  behave(behaviour: 'ok' | 'fatal' | 'silent'): void;
}

export const SING_BOX_1_14_VERSION_OUTPUT = [
  'sing-box version 1.14.2',
  '',
  'Environment: go1.24.4 darwin/arm64',
  'Tags: with_gvisor,with_quic,with_dhcp,with_wireguard,with_utls,with_acme,with_clash_api',
  'Revision: 5d3c5f6f6b3a1e8c0a9e2f4d7b1c3a5e7f9d0b2c',
  'CGO: disabled',
].join('\n');

export const FATAL_LINE = 'FATAL[0000] start service: start inbound/tun[tun-in]: configure tun interface: operation not permitted';

export function fakeSingBox(version = SING_BOX_1_14_VERSION_OUTPUT): FakeSingBox {
  const dir = mkdtempSync(join(tmpdir(), 'fake-sing-box-'));
  const path = join(dir, 'sing-box');
  const runsFile = join(dir, 'runs.jsonl');
  const behaviourFile = join(dir, 'behaviour');
  writeFileSync(behaviourFile, 'ok');
  const program = `#!${process.execPath}
const fs = require('node:fs');
const net = require('node:net');
const [command, flag, file] = process.argv.slice(2);
if (command === 'version') { process.stdout.write(${JSON.stringify(`${version}\n`)}); process.exit(0); }
if (command === 'check' || command === 'run') {
  if (flag !== '-c' || !file) { process.stderr.write('FATAL[0000] missing config\\n'); process.exit(1); }
  const config = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (command === 'check') process.exit(0);
  fs.appendFileSync(${JSON.stringify(runsFile)}, JSON.stringify({ pid: process.pid, config: file }) + '\\n');
  if (fs.readFileSync(${JSON.stringify(behaviourFile)}, 'utf8') === 'fatal') { process.stderr.write(${JSON.stringify(`${FATAL_LINE}\n`)}); process.exit(1); }
  process.on('SIGTERM', () => process.exit(0));
  if (fs.readFileSync(${JSON.stringify(behaviourFile)}, 'utf8') !== 'silent') {
    const inbound = config.inbounds.find((i) => i.type === 'mixed');
    net.createServer((socket) => socket.end()).listen(inbound.listen_port, inbound.listen);
  }
  setInterval(() => undefined, 1 << 30);
} else { process.stderr.write('unknown command\\n'); process.exit(1); }
`;
  writeFileSync(path, program);
  chmodSync(path, 0o755);
  return {
    path,
    dir,
    runs: () =>
      existsSync(runsFile)
        ? readFileSync(runsFile, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as { pid: number; config: string })
        : [],
    behave: (behaviour) => writeFileSync(behaviourFile, behaviour),
  };
}
