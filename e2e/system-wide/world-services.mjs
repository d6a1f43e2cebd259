// Runs inside the "world" namespace: sites that answer with the address they were reached from
// (HTTP on the target and the LAN address, UDP echo; the target on its IPv6 address too when one
// is given: a dual-stack site) and a DNS server that records who asked. A fifth argument delays the
// IPv6 site's generate_204 by that many milliseconds (a check that answers late).
import dgram from 'node:dgram';
import http from 'node:http';

const [target, lan, dnsAddress, target6, ipv6ProbeDelay] = process.argv.slice(2);
const ipv6ProbeDelayMs = Number(ipv6ProbeDelay ?? 0);
const dnsAskers = [];
const probeAskers = [];
const answer = (request, response) => {
  if (request.url === '/dns-askers') return response.end(JSON.stringify(dnsAskers));
  if (request.url === '/generate_204') {
    probeAskers.push(request.socket.remoteAddress);
    response.writeHead(204);
    return response.end();
  }
  if (request.url === '/probe-askers') return response.end(JSON.stringify(probeAskers));
  if (request.url?.startsWith('/bytes/')) {
    let left = Number(request.url.slice(7));
    const chunk = Buffer.alloc(64 * 1024, 120);
    response.writeHead(200, { 'content-length': String(left) });
    const pump = () => {
      while (left > 0) {
        const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= part.length;
        if (!response.write(part)) return response.once('drain', pump);
      }
      response.end();
    };
    return pump();
  }
  response.end(`${request.socket.remoteAddress}\n`);
};
http.createServer(answer).listen(8080, target);
if (target6) {
  const late = (request, response) => (request.url === '/generate_204' && ipv6ProbeDelayMs > 0 ? setTimeout(() => answer(request, response), ipv6ProbeDelayMs) : answer(request, response));
  http.createServer(late).listen(8080, target6);
}
http.createServer((request, response) => response.end(`${request.socket.remoteAddress}\n`)).listen(8080, lan);

for (const [family, address] of [['udp4', target], ['udp6', target6]]) {
  if (!address) continue;
  const echo = dgram.createSocket(family);
  echo.on('message', (message, from) => echo.send(Buffer.from(`${from.address}\n`), from.port, from.address));
  echo.bind(5353, address);
}

// DNS: answers every A question with the target's address, and notes the asker.
const dns = dgram.createSocket('udp4');
dns.on('message', (query, from) => {
  dnsAskers.push(from.address);
  let end = 12;
  while (query[end] !== 0) end += query[end] + 1;
  const question = query.subarray(12, end + 5);
  const header = Buffer.from([query[0], query[1], 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0]);
  const answer = Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, ...target.split('.').map(Number)]);
  dns.send(Buffer.concat([header, question, answer]), from.port, from.address);
});
dns.bind(53, dnsAddress, () => process.stdout.write('ready\n'));
