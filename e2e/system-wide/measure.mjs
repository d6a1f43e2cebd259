// Runs inside the user namespace: sequential GETs on fresh connections (each one's time to the end
// of the answer), then one download; either straight to the site (what a program that knows
// nothing of proxies does) or through the app's local HTTP proxy. One JSON line out.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const [mode, url, countText, downloadUrl, proxyPort] = process.argv.slice(2);
const target = new URL(url);

function get(path, onData) {
  const viaProxy = mode === 'proxy';
  return new Promise((resolve, reject) => {
    const request = http.request(
      viaProxy
        ? { host: '127.0.0.1', port: Number(proxyPort), path: new URL(path, target).href, headers: { host: target.host }, agent: false }
        : { host: target.hostname, port: Number(target.port), path, agent: false },
      (response) => {
        response.on('data', onData ?? (() => undefined));
        response.on('end', resolve);
        response.on('error', reject);
      },
    );
    request.setTimeout(30_000, () => request.destroy(new Error('timeout')));
    request.on('error', reject);
    request.end();
  });
}

const latencies = [];
for (let i = 0; i < Number(countText); i++) {
  const began = performance.now();
  await get(target.pathname);
  latencies.push(performance.now() - began);
}
let bytes = 0;
const began = performance.now();
await get(new URL(downloadUrl).pathname, (chunk) => (bytes += chunk.length));
const seconds = (performance.now() - began) / 1000;
process.stdout.write(JSON.stringify({ latencies, bytes, seconds }) + '\n');
