import type { Security, Server, Transport } from '../../shared/domain/server';
import type { CoreProfile } from './capabilities';
import { certificateCheck } from './cert-check';
import { isV2rayPluginAsWebSocket, pluginOptions } from './support';

type Json = Record<string, unknown>;

/**
 * The `streamSettings` of an outbound (v2ray 4 JSON, also read by v2ray 5 and, with additions,
 * by Xray). Assumes `unsupportedReason` returned null for this server and core.
 */
export function streamSettingsFor(server: Server, core: CoreProfile): Json {
  const { transport, security } = effectiveTransport(server);
  const stream: Json = { network: networkName(transport, core), security: security.type };
  Object.assign(stream, transportSettings(transport, core));
  if (security.type === 'tls') stream.tlsSettings = tlsSettings(security, server, core);
  if (security.type === 'reality') stream.realitySettings = realitySettings(security, server);
  return stream;
}

/**
 * A shadowsocks server behind v2ray-plugin (WebSocket mode) is shadowsocks over WebSocket, with
 * TLS when the plugin says `tls`; the core speaks that natively, so the plugin becomes a transport.
 */
function effectiveTransport(server: Server): { transport: Transport; security: Security } {
  if (server.protocol !== 'shadowsocks' || !server.plugin || !isV2rayPluginAsWebSocket(server.plugin)) {
    return { transport: server.transport, security: server.security };
  }
  const opts = pluginOptions(server.plugin.options);
  const host = opts.get('host') || undefined;
  const transport: Transport = { network: 'ws', path: opts.get('path') || '/', host };
  const security: Security = opts.has('tls') ? { type: 'tls', sni: host, allowInsecure: server.security.allowInsecure } : { type: 'none' };
  return { transport, security };
}

function networkName(transport: Transport, core: CoreProfile): string {
  switch (transport.network) {
    case 'h2':
      return 'http';
    case 'xhttp':
      return core.capabilities.features.has('splithttp-name') ? 'splithttp' : 'xhttp';
    default:
      return transport.network;
  }
}

function hosts(host: string | undefined): string[] {
  return (host ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
}

function transportSettings(t: Transport, core: CoreProfile): Json {
  const xray = core.family === 'xray';
  switch (t.network) {
    case 'tcp':
      if (t.headerType !== 'http') return {};
      return {
        tcpSettings: {
          header: {
            type: 'http',
            request: {
              version: '1.1',
              method: 'GET',
              path: (t.path || '/').split(',').map((p) => p.trim()),
              headers: {
                ...(hosts(t.host).length ? { Host: hosts(t.host) } : {}),
                'User-Agent': ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'],
                'Accept-Encoding': ['gzip, deflate'],
                Connection: ['keep-alive'],
                Pragma: ['no-cache'],
              },
            },
          },
        },
      };
    case 'ws': {
      const { path, earlyData } = splitEarlyData(t.path || '/');
      const host = hosts(t.host)[0];
      const ws: Json = {};
      if (xray) {
        // Xray reads `?ed=` from the path itself and sends early data in Sec-WebSocket-Protocol.
        ws.path = t.path || '/';
        // Xray ≥ 1.8.10 has its own `host` field (and deprecates headers.Host); older Xray only the header.
        if (host && core.capabilities.features.has('ws-host-field')) ws.host = host;
        else if (host) ws.headers = { Host: host };
      } else {
        ws.path = path;
        if (host) ws.headers = { Host: host };
        if (earlyData && core.capabilities.features.has('ws-early-data-field')) {
          ws.maxEarlyData = earlyData;
          ws.earlyDataHeaderName = 'Sec-WebSocket-Protocol';
        }
        // Without early data support the query is dropped: early data only saves a round trip.
      }
      return { wsSettings: ws };
    }
    case 'grpc': {
      const grpc: Json = { serviceName: t.serviceName ?? '' };
      if (xray) grpc.multiMode = t.grpcMultiMode === true;
      // Xray sends it as :authority (a CDN may route by it); v2rayN's own configs do the same.
      if (xray && t.host) grpc.authority = t.host;
      return { grpcSettings: grpc };
    }
    case 'h2':
      return { httpSettings: { ...(hosts(t.host).length ? { host: hosts(t.host) } : {}), path: t.path || '/' } };
    case 'httpupgrade': {
      const host = hosts(t.host)[0];
      return { httpupgradeSettings: { path: t.path || '/', ...(host ? { host } : {}) } };
    }
    case 'xhttp': {
      const host = hosts(t.host)[0];
      const settings: Json = { path: t.path || '/', ...(host ? { host } : {}) };
      if (t.mode) settings.mode = t.mode;
      if (t.xhttpExtra) settings.extra = t.xhttpExtra;
      return core.capabilities.features.has('splithttp-name') ? { splithttpSettings: settings } : { xhttpSettings: settings };
    }
    case 'kcp':
      if (core.capabilities.features.has('kcp-finalmask')) return { kcpSettings: {}, finalmask: { udp: kcpMasks(t) } };
      return {
        kcpSettings: {
          header: { type: t.headerType || 'none' },
          ...(t.seed ? { seed: t.seed } : {}),
        },
      };
    case 'quic':
      return {
        quicSettings: {
          security: t.quicSecurity || 'none',
          key: t.quicKey ?? '',
          header: { type: t.headerType || 'none' },
        },
      };
  }
}

/** mKCP's header types as FinalMask names them. */
const KCP_HEADER_MASKS: Record<string, string> = {
  srtp: 'header-srtp',
  utp: 'header-utp',
  'wechat-video': 'header-wechat',
  dtls: 'header-dtls',
  wireguard: 'header-wireguard',
};

/**
 * mKCP's old `header` and `seed` as Xray 26's FinalMask UDP masks: the header first, then the
 * obfuscation (AES-128-GCM keyed by the seed, else mKCP's original one). Checked against a v2ray
 * 4.34 server, which still writes them the old way: in the other order nothing matches.
 */
function kcpMasks(t: Transport): Json[] {
  const header = KCP_HEADER_MASKS[t.headerType ?? 'none'];
  return [
    ...(header ? [{ type: header }] : []),
    t.seed ? { type: 'mkcp-aes128gcm', settings: { password: t.seed } } : { type: 'mkcp-original' },
  ];
}

/** "/path?ed=2048" → { path: "/path", earlyData: 2048 }; other query parameters are kept. */
export function splitEarlyData(rawPath: string): { path: string; earlyData: number | null } {
  const q = rawPath.indexOf('?');
  if (q < 0) return { path: rawPath, earlyData: null };
  const params = new URLSearchParams(rawPath.slice(q + 1));
  const ed = params.get('ed');
  if (ed === null) return { path: rawPath, earlyData: null };
  params.delete('ed');
  const rest = params.toString();
  const earlyData = Number.parseInt(ed, 10);
  return { path: rawPath.slice(0, q) + (rest ? `?${rest}` : ''), earlyData: Number.isFinite(earlyData) && earlyData > 0 ? earlyData : null };
}

function tlsSettings(security: Security, server: Server, core: CoreProfile): Json {
  const tls: Json = {};
  const serverName = security.sni || sniFromHost(server) || (isIp(server.address) ? undefined : server.address);
  if (serverName) tls.serverName = serverName;
  if (security.alpn?.length) tls.alpn = security.alpn;
  // An HTTPS proxy: v2ray's http outbound switches to HTTP/2 CONNECT when TLS negotiates h2, which
  // many HTTPS proxies (v2ray's own http inbound among them) do not speak; HTTP/1.1 CONNECT is
  // universal, so offer only that unless the entry names its ALPN (found with v2ray 4.34).
  else if (server.protocol === 'http') tls.alpn = ['http/1.1'];
  // Pin, name to verify by, or allowInsecure where the core still takes it (a core without it
  // verifies the certificate instead of refusing the whole config, as Xray ≥ 26.2.6 would).
  Object.assign(tls, certificateCheck(security, core.capabilities.features).fields);
  // uTLS fingerprints exist only in Xray; other cores use Go's own TLS hello.
  if (security.fingerprint && core.capabilities.features.has('tls-fingerprint')) tls.fingerprint = security.fingerprint;
  if (security.ech && core.family === 'xray') tls.echConfigList = security.ech; // Xray's ECH (a link's ech=); v2ray has none
  return tls;
}

function realitySettings(security: Security, server: Server): Json {
  return {
    serverName: security.sni || server.address,
    // Xray requires a fingerprint with REALITY; "chrome" is what share links default to.
    fingerprint: security.fingerprint || 'chrome',
    publicKey: security.publicKey ?? '',
    shortId: security.shortId ?? '',
    ...(security.spiderX ? { spiderX: security.spiderX } : {}),
    ...(security.mldsa65Verify ? { mldsa65Verify: security.mldsa65Verify } : {}),
  };
}

/** ws/h2/httpupgrade servers often set the TLS name only as the Host header. */
function sniFromHost(server: Server): string | undefined {
  return hosts(server.transport.host)[0];
}

function isIp(address: string): boolean {
  return address.includes(':') || /^\d{1,3}(\.\d{1,3}){3}$/.test(address);
}
