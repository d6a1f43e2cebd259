import type { Endpoint, SecurityType, Transport } from '../../../shared/domain/server';
import { type ConfigItem, type Json, walkConfigs } from './config-walk';
import { wireguardAddresses, reservedBytes } from './links/plain-proxies';
import { splitHostPort } from './links/split';
import { mbps } from './links/quic';
import { buildSecurity, buildTransport, echConfigListOf, networkOf, noSecurity, noStreamTransport, quicTransport, securityTypeOf, xhttpExtraOf } from './stream';
import { asArray, asObject, cleanName, isTruthy, splitList, str } from './text';
import type { FormatOutput, NonServerKind } from './types';
import { flowField, checkHost, checkPort, checkPortHopping, checkSecret, checkUuid, checkShadowsocksCipher, checkWireguardKey, reject, vmessCipher } from './validate';

const SKIPPED: Record<string, NonServerKind> = {
  freedom: 'direct',
  direct: 'direct',
  blackhole: 'block',
  block: 'block',
  dns: 'block',
  loopback: 'direct',
};

/**
 * Xray / v2ray JSON: one config object or an array of them (one per server, as many providers
 * serve). Every outbound of protocol vmess, vless, trojan, shadowsocks, socks, http or wireguard
 * becomes a server with its streamSettings; freedom / blackhole / dns are skipped. Its name is
 * the config's `remarks` when the config has one proxy outbound, else `remarks · tag`, else the
 * tag. Item numbers: the outbound's position in a single config, the config's position in an
 * array.
 */
export function parseXrayConfigs(configs: Json[], isArray: boolean): FormatOutput {
  return walkConfigs(configs, isArray, { name: 'xray', items: xrayItems });
}

function xrayItems(config: Json): ConfigItem[] {
  const outbounds = asArray(config.outbounds);
  const remarks = cleanName(str(config.remarks));
  const proxyCount = outbounds.filter((o) => !(str(asObject(o).protocol).toLowerCase() in SKIPPED)).length;
  return outbounds.map((raw) => {
    const outbound = asObject(raw);
    const protocol = str(outbound.protocol).toLowerCase();
    const tag = str(outbound.tag);
    const skipped = SKIPPED[protocol];
    if (skipped) return { kind: 'not-a-server', tag, what: skipped };
    const stream = asObject(outbound.streamSettings);
    return {
      kind: 'server',
      raw,
      tag,
      read: (note) => ({
        endpoint: xrayEndpoint(protocol, outbound, note),
        // The tag is raw config text: cleaned like every other name (no control characters, at most 200).
        name: cleanName(remarks ? (proxyCount > 1 && tag ? `${remarks} · ${tag}` : remarks) : tag),
        via: str(asObject(outbound.proxySettings).tag) || str(asObject(stream.sockopt).dialerProxy),
      }),
    };
  });
}

function xrayEndpoint(protocol: string, outbound: Json, note: (n: string) => void): Endpoint {
  const settings = asObject(outbound.settings);
  const label = protocol || 'xray';
  const stream = () => xrayStream(label, asObject(outbound.streamSettings), note);
  switch (protocol) {
    case 'vmess':
    case 'vless': {
      const vnext = asArray(settings.vnext);
      if (vnext.length > 1) note(`${protocol}: only the first of ${vnext.length} servers in vnext is used`);
      const server = vnext.length > 0 ? asObject(vnext[0]) : settings;
      const users = asArray(server.users);
      const user = users.length > 0 ? asObject(users[0]) : server;
      const address = checkHost(label, server.address);
      const port = checkPort(label, server.port);
      const uuid = checkUuid(label, user.id);
      if (protocol === 'vmess') {
        const alterId = Number(str(user.alterId));
        return {
          protocol,
          address,
          port,
          uuid,
          alterId: Number.isInteger(alterId) && alterId >= 0 && alterId <= 65535 ? alterId : 0,
          cipher: vmessCipher(label, str(user.security), note),
          ...stream(),
        };
      }
      const flow = str(user.flow);
      return { protocol, address, port, uuid, encryption: str(user.encryption) || 'none', ...flowField(label, flow), ...stream() };
    }
    case 'trojan':
    case 'shadowsocks': {
      const servers = asArray(settings.servers);
      if (servers.length > 1) note(`${protocol}: only the first of ${servers.length} servers is used`);
      const server = servers.length > 0 ? asObject(servers[0]) : settings;
      const address = checkHost(label, server.address);
      const port = checkPort(label, server.port);
      if (protocol === 'trojan') return { protocol, address, port, password: checkSecret(label, 'password', server.password), ...stream() };
      const method = str(server.method).toLowerCase();
      if (!method) return reject('shadowsocks: missing method');
      checkShadowsocksCipher('shadowsocks', method);
      const password = str(server.password);
      if (!password && method !== 'none' && method !== 'plain') return reject('shadowsocks: missing password');
      return { protocol, address, port, method, password, ...stream() };
    }
    case 'socks':
    case 'http': {
      const servers = asArray(settings.servers);
      const server = servers.length > 0 ? asObject(servers[0]) : settings;
      const users = asArray(server.users);
      const user = users.length > 0 ? asObject(users[0]) : {};
      const address = checkHost(label, server.address);
      const port = checkPort(label, server.port);
      const username = str(user.user);
      const password = str(user.pass);
      return { protocol, address, port, ...(username ? { username } : {}), ...(password ? { password } : {}), ...stream() };
    }
    case 'wireguard': {
      const peers = asArray(settings.peers);
      const peer = asObject(peers[0]);
      const { host, port: rawPort } = splitHostPort(str(peer.endpoint));
      const reserved = reservedBytes(settings.reserved);
      const mtu = Number(settings.mtu);
      const psk = str(peer.preSharedKey);
      const localAddresses = wireguardAddresses(asArray(settings.address).length > 0 ? settings.address : str(settings.address));
      if (localAddresses.length === 0) return reject('wireguard: missing address (the tunnel IP this side uses)');
      return {
        protocol,
        address: checkHost(label, host),
        port: checkPort(label, rawPort),
        privateKey: checkWireguardKey(label, 'private key (secretKey)', settings.secretKey),
        publicKey: checkWireguardKey(label, 'public key', peer.publicKey),
        localAddresses,
        ...(psk ? { preSharedKey: checkWireguardKey(label, 'pre-shared key', psk) } : {}),
        ...(reserved ? { reserved } : {}),
        ...(Number.isInteger(mtu) && mtu >= 576 && mtu <= 65535 ? { mtu } : {}),
        transport: noStreamTransport(),
        security: noSecurity(),
      };
    }
    case 'hysteria':
      return xrayHysteria2(settings, asObject(outbound.streamSettings), note);
    case '':
      return reject('xray: outbound without a protocol');
    default:
      return reject(`xray: outbound protocol "${protocol.slice(0, 30)}" is not supported`);
  }
}

/**
 * Xray's Hysteria2: a `hysteria` outbound (version 2, where the server is) over its `hysteria`
 * transport (auth, bandwidth and port hopping; since March 2026 the last two in
 * `finalmask.quicParams`, and salamander in `finalmask.udp`), always with TLS.
 */
function xrayHysteria2(settings: Json, stream: Json, note: (n: string) => void): Endpoint {
  const label = 'hysteria2';
  const hysteria = asObject(stream.hysteriaSettings);
  const version = Number(str(settings.version ?? hysteria.version) || 2);
  if (version !== 2) return reject(`hysteria: Xray's hysteria outbound of version ${String(version).slice(0, 10)} (only version 2, Hysteria2, is read)`);
  const finalmask = asObject(stream.finalmask);
  const quicParams = asObject(finalmask.quicParams);
  const hopping = str(asObject(quicParams.udpHop).ports) || str(asObject(hysteria.udphop).port);
  const salamander = asArray(finalmask.udp).map(asObject).find((mask) => str(mask.type).toLowerCase() === 'salamander');
  const up = mbps(quicParams.brutalUp ?? hysteria.up);
  const down = mbps(quicParams.brutalDown ?? hysteria.down);
  // The TLS settings read as every other outbound's (the transport itself is the QUIC placeholder).
  const { security } = xrayStream(label, { ...stream, network: 'tcp', security: 'tls' }, note);
  return {
    protocol: 'hysteria2',
    address: checkHost(label, settings.address),
    port: checkPort(label, settings.port),
    password: str(hysteria.auth),
    ...(hopping ? { portHopping: checkPortHopping(label, hopping) } : {}),
    ...(salamander ? { obfs: { type: 'salamander', password: checkSecret(label, 'salamander password', asObject(salamander.settings).password) } } : {}),
    ...(up !== undefined ? { upMbps: up } : {}),
    ...(down !== undefined ? { downMbps: down } : {}),
    transport: quicTransport(),
    security,
  };
}

function xrayStream(label: string, stream: Json, note: (n: string) => void): { transport: Transport; security: ReturnType<typeof buildSecurity> } {
  const network = networkOf(label, str(stream.network));
  const ws = asObject(stream.wsSettings);
  const grpc = asObject(stream.grpcSettings);
  const h2 = asObject(stream.httpSettings ?? stream.h2Settings);
  const upgrade = asObject(stream.httpupgradeSettings);
  const xhttp = asObject(stream.xhttpSettings ?? stream.splithttpSettings);
  const tcpHeader = asObject(asObject(stream.tcpSettings ?? stream.rawSettings).header);
  const tcpRequest = asObject(tcpHeader.request);
  const kcp = asObject(stream.kcpSettings);
  const quic = asObject(stream.quicSettings);
  const first = (v: unknown) => (Array.isArray(v) ? str(v[0]) : str(v));
  let fields: Parameters<typeof buildTransport>[1] = {};
  switch (network) {
    case 'ws':
      fields = { path: str(ws.path), host: str(ws.host) || str(asObject(ws.headers).Host) || str(asObject(ws.headers).host) };
      break;
    case 'grpc':
      fields = { serviceName: str(grpc.serviceName), mode: grpc.multiMode === true ? 'multi' : undefined, host: str(grpc.authority) };
      break;
    case 'h2':
      fields = { path: str(h2.path), host: splitList(h2.host).join(',') };
      break;
    case 'httpupgrade':
      fields = { path: str(upgrade.path), host: str(upgrade.host) };
      break;
    case 'xhttp': {
      // Everything but the three fields the app models travels on as `extra`, which Xray merges back.
      const { path, host, mode, extra, ...rest } = xhttp;
      const merged = { ...rest, ...asObject(extra) };
      fields = { path: str(path), host: str(host), mode: str(mode), xhttpExtra: xhttpExtraOf(merged, (text) => note(`${label}: ${text}`)) };
      break;
    }
    case 'tcp': {
      const headers = asObject(tcpRequest.headers);
      fields = { headerType: str(tcpHeader.type), path: first(tcpRequest.path), host: first(headers.Host ?? headers.host) };
      break;
    }
    case 'kcp':
      fields = { headerType: str(asObject(kcp.header).type), seed: str(kcp.seed) };
      break;
    case 'quic':
      fields = { headerType: str(asObject(quic.header).type), quicSecurity: str(quic.security), quicKey: str(quic.key) };
      break;
  }
  const type: SecurityType = securityTypeOf(label, str(stream.security), 'none');
  const tls = asObject(type === 'reality' ? stream.realitySettings : (stream.tlsSettings ?? stream.xtlsSettings));
  const security = buildSecurity(label, type, {
    sni: str(tls.serverName),
    alpn: splitList(tls.alpn),
    fingerprint: str(tls.fingerprint),
    allowInsecure: isTruthy(tls.allowInsecure),
    // A string (`,` between several) since Xray 26.1.18; some generators write a list.
    pinnedCertSha256: Array.isArray(tls.pinnedPeerCertSha256) ? tls.pinnedPeerCertSha256.map(str).join(',') : str(tls.pinnedPeerCertSha256),
    verifyName: str(tls.verifyPeerCertByName),
    ech: echConfigListOf(label, tls.echConfigList === undefined ? undefined : str(tls.echConfigList), type, note),
    // Xray's client REALITY key is `password` now (`publicKey` its old name, which it still reads).
    publicKey: str(tls.password) || str(tls.publicKey),
    shortId: str(tls.shortId),
    spiderX: str(tls.spiderX),
    mldsa65Verify: str(tls.mldsa65Verify),
  });
  return { transport: buildTransport(network, fields), security };
}
