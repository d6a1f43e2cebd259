/**
 * A server as the share link other apps import (v2rayN, v2rayNG, Hiddify, sing-box clients, this
 * app): v2rayN's base64 JSON for vmess, URIs with a query for the rest. Pure; the link carries the
 * server's credentials, so it is made only when the user asks to see it. Every link reads back
 * through this app's own parser as the same server (share-link.test.ts).
 */
import type { Security, Server, Transport } from '../../../shared/domain/server';
import { hostPort } from '../../../shared/domain/server';

type Params = [string, string | undefined][];

function query(params: Params): string {
  const text = params
    .filter((p): p is [string, string] => p[1] !== undefined && p[1] !== '')
    .map(([key, value]) => `${key}=${encodeURIComponent(value)}`)
    .join('&');
  return text ? `?${text}` : '';
}

const bracketed = (address: string) => (address.includes(':') ? `[${address}]` : address);
const fragment = (name: string) => `#${encodeURIComponent(name)}`;
const userinfo = (text: string) => encodeURIComponent(text);

function transportParams(t: Transport): Params {
  return [
    ['type', t.network],
    ['path', t.network === 'grpc' ? undefined : t.path],
    [t.network === 'grpc' ? 'authority' : 'host', t.host],
    ['serviceName', t.serviceName],
    ['mode', t.network === 'grpc' ? (t.grpcMultiMode ? 'multi' : undefined) : t.mode],
    ['headerType', t.headerType],
    ['seed', t.seed],
    ['quicSecurity', t.quicSecurity],
    ['key', t.quicKey],
    ['extra', t.xhttpExtra ? JSON.stringify(t.xhttpExtra) : undefined],
  ];
}

function securityParams(s: Security): Params {
  return [
    ['security', s.type],
    ['sni', s.sni],
    ['alpn', s.alpn?.join(',')],
    ['fp', s.fingerprint],
    ['allowInsecure', s.allowInsecure ? '1' : undefined],
    ...certificateCheckParams(s),
    ['ech', s.ech],
    ['pbk', s.publicKey],
    ['sid', s.shortId],
    ['spx', s.spiderX],
    ['pqv', s.mldsa65Verify],
  ];
}

/** Xray's share-link spelling of a certificate pin (`pcs`, several joined with `~`) and of the name to verify it by (`vcn`). */
function certificateCheckParams(s: Security): Params {
  return [
    ['pcs', s.pinnedCertSha256?.join('~')],
    ['vcn', s.verifyName],
  ];
}

const ipv6Param = (server: Server): Params => [['ipv6', server.ipv6 === undefined ? undefined : server.ipv6 ? '1' : '0']];

export function shareLink(server: Server): string {
  const at = hostPort(server.address, server.port);
  switch (server.protocol) {
    case 'vmess': {
      const t = server.transport;
      const body = {
        v: '2',
        ps: server.name,
        add: server.address,
        port: String(server.port),
        id: server.uuid,
        aid: String(server.alterId),
        scy: server.cipher,
        net: t.network,
        // v2rayN writes grpc's mode here too ("multi" or "gun").
        type: t.network === 'kcp' || t.network === 'quic' || t.network === 'tcp' ? (t.headerType ?? 'none') : t.network === 'grpc' ? (t.grpcMultiMode ? 'multi' : 'gun') : (t.mode ?? 'none'),
        host: t.network === 'quic' ? (t.quicSecurity ?? '') : (t.host ?? ''),
        path: t.network === 'grpc' ? (t.serviceName ?? '') : t.network === 'kcp' ? (t.seed ?? '') : t.network === 'quic' ? (t.quicKey ?? '') : (t.path ?? ''),
        tls: server.security.type === 'none' ? '' : server.security.type,
        sni: server.security.sni ?? '',
        alpn: server.security.alpn?.join(',') ?? '',
        fp: server.security.fingerprint ?? '',
        ...(server.security.allowInsecure ? { allowInsecure: '1' } : {}),
        // v2rayN's JSON has no field for these; the query's names keep them for this app's import.
        ...Object.fromEntries(certificateCheckParams(server.security).filter(([, value]) => value)),
        ...(server.security.ech ? { ech: server.security.ech } : {}),
        ...(server.security.publicKey ? { pbk: server.security.publicKey, sid: server.security.shortId ?? '', spx: server.security.spiderX ?? '' } : {}),
        ...(server.security.mldsa65Verify ? { pqv: server.security.mldsa65Verify } : {}),
        ...(server.ipv6 !== undefined ? { ipv6: server.ipv6 ? '1' : '0' } : {}),
      };
      return `vmess://${Buffer.from(JSON.stringify(body), 'utf8').toString('base64')}`;
    }
    case 'vless':
      return `vless://${userinfo(server.uuid)}@${at}${query([['encryption', server.encryption], ['flow', server.flow], ...transportParams(server.transport), ...securityParams(server.security), ...ipv6Param(server)])}${fragment(server.name)}`;
    case 'trojan':
      return `trojan://${userinfo(server.password)}@${at}${query([...transportParams(server.transport), ...securityParams(server.security), ...ipv6Param(server)])}${fragment(server.name)}`;
    case 'shadowsocks': {
      // SIP002: base64url user info, except 2022 ciphers, whose keys are written percent-encoded.
      const credentials = server.method.startsWith('2022-')
        ? `${server.method}:${userinfo(server.password)}`
        : Buffer.from(`${server.method}:${server.password}`, 'utf8').toString('base64url');
      const stream: Params = server.plugin
        ? [['plugin', `${server.plugin.name}${server.plugin.options ? `;${server.plugin.options}` : ''}`]]
        : server.transport.network !== 'tcp' || server.security.type !== 'none'
          ? [...transportParams(server.transport), ...securityParams(server.security)]
          : [];
      return `ss://${credentials}@${at}${query([...stream, ...ipv6Param(server)])}${fragment(server.name)}`;
    }
    case 'hysteria2':
      // Port hopping is written in the authority, as Hysteria's own URI scheme has it.
      return `hysteria2://${userinfo(server.password)}@${server.portHopping ? `${bracketed(server.address)}:${server.portHopping}` : at}/${query([
        ['sni', server.security.sni],
        ['alpn', server.security.alpn?.join(',')],
        ['insecure', server.security.allowInsecure ? '1' : undefined],
        ...certificateCheckParams(server.security),
        ['ech', server.security.ech],
        // Hysteria's own clients read one pin, as `pinSHA256`.
        ['pinSHA256', server.security.pinnedCertSha256?.length === 1 ? server.security.pinnedCertSha256[0] : undefined],
        ['obfs', server.obfs?.type],
        ['obfs-password', server.obfs?.password],
        ['up', server.upMbps === undefined ? undefined : String(server.upMbps)],
        ['down', server.downMbps === undefined ? undefined : String(server.downMbps)],
        ...ipv6Param(server),
      ])}${fragment(server.name)}`;
    case 'tuic':
      return `tuic://${userinfo(server.uuid)}:${userinfo(server.password)}@${at}${query([
        ['sni', server.security.sni],
        ['alpn', server.security.alpn?.join(',')],
        ['allow_insecure', server.security.allowInsecure ? '1' : undefined],
        ['ech', server.security.ech],
        ['congestion_control', server.congestionControl],
        ['udp_relay_mode', server.udpRelayMode],
        ...ipv6Param(server),
      ])}${fragment(server.name)}`;
    case 'wireguard':
      return `wireguard://${userinfo(server.privateKey)}@${at}${query([
        ['publickey', server.publicKey],
        ['presharedkey', server.preSharedKey],
        ['address', server.localAddresses.join(',')],
        ['reserved', server.reserved?.join(',')],
        ['mtu', server.mtu === undefined ? undefined : String(server.mtu)],
        ...ipv6Param(server),
      ])}${fragment(server.name)}`;
    case 'socks':
    case 'http': {
      const scheme = server.protocol === 'socks' ? 'socks5' : server.security.type === 'tls' ? 'https' : 'http';
      const user = server.username !== undefined || server.password !== undefined ? `${userinfo(server.username ?? '')}:${userinfo(server.password ?? '')}@` : '';
      // SOCKS inside TLS keeps its TLS (`tls=1`, as Shadowrocket writes it): without it the link
      // would name a plaintext SOCKS server.
      const tls: Params = server.protocol === 'socks' && server.security.type === 'tls' ? [['tls', '1'], ...securityParams(server.security).filter(([key]) => key !== 'security')] : [];
      return `${scheme}://${user}${at}${query(tls)}${fragment(server.name)}`;
    }
    case 'hysteria':
      // Hysteria v1's own URI scheme: the auth in the query, `peer` for the SNI, `mport` for hopping.
      return `hysteria://${at}${query([
        ['protocol', server.carrier],
        ['auth', server.auth],
        ['peer', server.security.sni],
        ['alpn', server.security.alpn?.join(',')],
        ['insecure', server.security.allowInsecure ? '1' : undefined],
        ...certificateCheckParams(server.security),
        ['upmbps', String(server.upMbps)],
        ['downmbps', String(server.downMbps)],
        ['obfs', server.obfs === undefined ? undefined : 'xplus'],
        ['obfsParam', server.obfs],
        ['mport', server.portHopping],
        ...ipv6Param(server),
      ])}${fragment(server.name)}`;
    case 'anytls':
      return `anytls://${userinfo(server.password)}@${at}/${query([
        // REALITY as v2rayN and Throne write it for AnyTLS; plain TLS needs no `security`.
        ...(server.security.type === 'reality'
          ? ([
              ['security', 'reality'],
              ['pbk', server.security.publicKey],
              ['sid', server.security.shortId],
              ['spx', server.security.spiderX],
            ] as [string, string | undefined][])
          : []),
        ['sni', server.security.sni],
        ['alpn', server.security.alpn?.join(',')],
        ['fp', server.security.fingerprint],
        ['insecure', server.security.allowInsecure ? '1' : undefined],
        ...certificateCheckParams(server.security),
        ...ipv6Param(server),
      ])}${fragment(server.name)}`;
    case 'naive': {
      const user = server.username !== undefined || server.password !== undefined ? `${userinfo(server.username ?? '')}:${userinfo(server.password ?? '')}@` : '';
      return `naive+${server.quic ? 'quic' : 'https'}://${user}${at}${query([['sni', server.security.sni], ...ipv6Param(server)])}${fragment(server.name)}`;
    }
  }
}
