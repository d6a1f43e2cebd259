import type { Network, Protocol, Server } from './server';

/**
 * Minimal, syntactically valid servers of every protocol, with dummy credentials: used to ask a
 * core binary what it accepts (app/core/detect.ts), and the one server fixture every test builds
 * on (app, main and the renderer alike). Addresses are documentation ranges.
 */
export function sampleServer(protocol: Protocol, network: Network = 'tcp', extra: Partial<Server> = {}): Server {
  const base = {
    id: `sample-${protocol}-${network}`,
    subscriptionId: 'samples',
    name: `sample ${protocol} ${network}`,
    address: '192.0.2.1',
    port: 443,
    transport: { network, ...transportDefaults(network) },
    security: { type: 'none' as const },
  };
  const uuid = '0b3f5b5e-7a52-4f4e-9b0c-2f1c4c8e9a11';
  const byProtocol: Record<Protocol, Server> = {
    vmess: { ...base, protocol: 'vmess', uuid, alterId: 0, cipher: 'auto' },
    vless: { ...base, protocol: 'vless', uuid, encryption: 'none' },
    trojan: { ...base, protocol: 'trojan', password: 'sample-password' },
    shadowsocks: { ...base, protocol: 'shadowsocks', method: 'aes-128-gcm', password: 'sample-password' },
    hysteria2: { ...base, protocol: 'hysteria2', password: 'sample-password', security: { type: 'tls', sni: 'example.com' } },
    tuic: { ...base, protocol: 'tuic', uuid, password: 'sample-password', security: { type: 'tls', sni: 'example.com' } },
    wireguard: {
      ...base,
      protocol: 'wireguard',
      privateKey: 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=',
      publicKey: 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=',
      localAddresses: ['10.7.0.2/32'],
    },
    socks: { ...base, protocol: 'socks' },
    http: { ...base, protocol: 'http' },
    hysteria: { ...base, protocol: 'hysteria', auth: 'sample-auth', upMbps: 10, downMbps: 50, security: { type: 'tls', sni: 'example.com' } },
    anytls: { ...base, protocol: 'anytls', password: 'sample-password', security: { type: 'tls', sni: 'example.com' } },
    naive: { ...base, protocol: 'naive', username: 'sample', password: 'sample-password', security: { type: 'tls', sni: 'example.com' } },
  };
  return { ...byProtocol[protocol], ...extra } as Server;
}

function transportDefaults(network: Network): Partial<Server['transport']> {
  switch (network) {
    case 'grpc':
      return { serviceName: 'sample' };
    case 'ws':
    case 'h2':
    case 'httpupgrade':
    case 'xhttp':
      return { path: '/sample', host: 'example.com' };
    default:
      return {};
  }
}
