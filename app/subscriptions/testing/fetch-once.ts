// A stand-in for the app in the HTTPS test: one subscription fetch with the app's fetcher, in a
// process of its own, because Node reads its trusted certificates (NODE_EXTRA_CA_CERTS) only at
// start. Prints the outcome as one JSON line (the body as text).
import { HttpSubscriptionFetcher } from '../fetch';

const [url, proxy] = process.argv.slice(2);
if (!url) throw new Error('usage: fetch-once.ts <url> [http proxy]');
const fetcher = new HttpSubscriptionFetcher({ timeoutMs: 5000 });
const outcome = await fetcher.fetch(url, proxy ? { proxy } : {});
await fetcher.close();
process.stdout.write(`${JSON.stringify(outcome.ok ? { ok: true, status: outcome.status, body: outcome.body.toString('utf8') } : outcome)}\n`);
