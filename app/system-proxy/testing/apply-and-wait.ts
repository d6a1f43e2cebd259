// A stand-in for the app in the crash test: sets the system proxy, says so, then waits to be killed
// without ever restoring (as a crash, a power cut or `kill -9` would leave it).
import { memoryLogger } from '../../log/logger';
import { detectProxyBackends } from '../detect';
import { execRunner } from '../exec-runner';
import { SystemProxy } from '../system-proxy';

const [statePath, port] = process.argv.slice(2);
if (!statePath || !port) throw new Error('usage: apply-and-wait.ts <state file> <http port>');
const run = execRunner();
const backends = await detectProxyBackends(run, 'linux', process.env);
const proxy = new SystemProxy({ backends, run, statePath, logger: memoryLogger().logger });
const report = await proxy.apply({ host: '127.0.0.1', httpPort: Number(port), socksPort: null });
process.stdout.write(`${JSON.stringify(report)}\n`);
setInterval(() => undefined, 60_000);
