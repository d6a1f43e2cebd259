import { describe, expect, it } from 'vitest';
import { interpretCoreLine, outboundFailureKind, parseCoreLogLine, remoteAddressIn } from './core-log';

// Real lines written by Debian's v2ray 4.34.0 on this machine (loopback servers, ports as they were).
const V2RAY_434 = {
  started: '2026/11/30 13:35:21 [Warning] v2ray.com/core: V2Ray 4.34.0 started',
  detour:
    '2026/11/30 13:35:50 [Info] [2377213378] v2ray.com/core/app/dispatcher: taking detour [out-rst] for [tcp:127.0.0.1:9]',
  dialing: '2026/11/30 13:36:04 [Info] [3129139338] v2ray.com/core/transport/internet/tcp: dialing TCP to tcp:127.0.0.1:19003',
  refused:
    '2026/11/30 13:36:06 [Warning] [3129139338] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/vmess/outbound: failed to find an available destination > v2ray.com/core/common/retry: [dial tcp 127.0.0.1:19003: connect: connection refused] > v2ray.com/core/common/retry: all retry attempts failed',
  reset:
    '2026/11/30 13:35:50 [Info] [2377213378] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/vmess/outbound: connection ends > v2ray.com/core/proxy/vmess/outbound: failed to read header > v2ray.com/core/proxy/vmess/encoding: Unable to Read Header Len > read tcp 127.0.0.1:58006->127.0.0.1:19001: read: connection reset by peer',
  dns: '2026/11/30 13:37:44 [Warning] [3835660927] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/vmess/outbound: failed to find an available destination > v2ray.com/core/common/retry: [dial tcp: lookup nosuchhost.invalid on 10.255.255.53:53: no such host] > v2ray.com/core/common/retry: all retry attempts failed',
  vlessRejected:
    '2026/11/30 13:37:29 [Info] [1179557904] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/vless/outbound: connection ends > v2ray.com/core/proxy/vless/outbound: failed to decode response header > v2ray.com/core/proxy/vless/encoding: failed to read response version > EOF',
  cancelled:
    '2026/11/30 13:35:55 [Info] [2602113812] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/vmess/outbound: connection ends > context canceled',
  inboundEnds:
    '2026/11/30 13:36:06 [Info] [3129139338] v2ray.com/core/app/proxyman/inbound: connection ends > v2ray.com/core/proxy/http: connection ends > io: read/write on closed pipe',
  access: '2026/11/30 13:35:50 127.0.0.1:58776 accepted //127.0.0.1:9 [out-rst]',
  busy: 'Failed to start v2ray.com/core/app/proxyman/inbound: failed to listen TCP on 18809 > v2ray.com/core/transport/internet: failed to listen on address: 127.0.0.1:18809 > v2ray.com/core/transport/internet/tcp: failed to listen TCP on 127.0.0.1:18809 > listen tcp 127.0.0.1:18809: bind: address already in use',
  banner: 'V2Ray 4.34.0 (user) 20230518-074445 (go1.19.8 linux/amd64)',
};

// Captured from the lab (relays on 127.0.2.x) through the tunnel core at info level.
const LAB = {
  vlessReset:
    '2026/11/30 14:20:32 [Info] [4152905306] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/vless/outbound: connection ends > v2ray.com/core/proxy/vless/outbound: failed to decode response header > v2ray.com/core/proxy/vless/encoding: failed to read response version > read tcp 127.0.0.1:53602->127.0.2.2:40673: read: connection reset by peer',
  wsRefused:
    '2026/11/30 14:20:34 [Warning] [4117281031] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/vmess/outbound: failed to find an available destination > v2ray.com/core/common/retry: [v2ray.com/core/transport/internet/websocket: failed to dial WebSocket > v2ray.com/core/transport/internet/websocket: failed to dial to (ws://127.0.2.5:39791/ws/b2):  > dial tcp 127.0.2.5:39791: connect: connection refused] > v2ray.com/core/common/retry: all retry attempts failed',
  // The WebSocket upgrade is part of the dial, so a reset is retried (and once even beat the connect).
  wsReset:
    '2026/11/30 14:20:36 [Warning] [1558281910] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/vmess/outbound: failed to find an available destination > v2ray.com/core/common/retry: [v2ray.com/core/transport/internet/websocket: failed to dial WebSocket > v2ray.com/core/transport/internet/websocket: failed to dial to (ws://127.0.2.5:39791/ws/b2):  > read tcp 127.0.0.1:47338->127.0.2.5:39791: read: connection reset by peer v2ray.com/core/transport/internet/websocket: failed to dial WebSocket > v2ray.com/core/transport/internet/websocket: failed to dial to (ws://127.0.2.5:39791/ws/b2):  > dial tcp 127.0.2.5:39791: connect: connection reset by peer] > v2ray.com/core/common/retry: all retry attempts failed',
  trojanTlsRefused:
    '2026/11/30 14:20:38 [Warning] [2138058478] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/trojan: failed to find an available destination > v2ray.com/core/common/retry: [dial tcp 127.0.2.7:44715: connect: connection refused] > v2ray.com/core/common/retry: all retry attempts failed',
  // Each attempt of a WebSocket dial (a reset upgrade is retried like a refused connect).
  wsDialing: '2026/11/30 15:05:24 [Info] [3674192718] v2ray.com/core/transport/internet/websocket: creating connection to tcp:127.0.2.5:39223',
  // Healthy connections through WebSocket servers, closed normally by the server after the answer.
  vlessWsNormalClose:
    '2026/11/30 15:18:49 [Info] [959641694] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/vless/outbound: connection ends > v2ray.com/core/proxy/vless/outbound: failed to transfer response payload > websocket: close 1000 (normal)',
  trojanWsNormalClose:
    '2026/11/30 15:19:07 [Info] [545273085] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/trojan: connection ends > websocket: close 1000 (normal)',
  // A vless/ws server rejecting a wrong id: the same close, before the answer's header.
  vlessWsRejected:
    '2026/11/30 15:19:32 [Info] [1518938433] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/vless/outbound: connection ends > v2ray.com/core/proxy/vless/outbound: failed to decode response header > v2ray.com/core/proxy/vless/encoding: failed to read response version > websocket: close 1000 (normal)',
  trojanTlsReset:
    '2026/11/30 14:20:38 [Warning] [1247297301] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/trojan: connection ends > v2ray.com/core/proxy/trojan: failed to flush payload > write tcp 127.0.0.1:57152->127.0.2.7:44715: write: connection reset by peer',
};

describe('interpretCoreLine on lines from the lab', () => {
  it.each([
    ['vless reset', LAB.vlessReset, 'reset', '127.0.2.2:40673'],
    ['WebSocket refused', LAB.wsRefused, 'refused', '127.0.2.5:39791'],
    ['WebSocket reset during the upgrade', LAB.wsReset, 'reset', '127.0.2.5:39791'],
    ['trojan over TLS refused', LAB.trojanTlsRefused, 'refused', '127.0.2.7:44715'],
    ['trojan over TLS reset', LAB.trojanTlsReset, 'reset', '127.0.2.7:44715'],
    ['vless over WebSocket rejecting the id', LAB.vlessWsRejected, 'handshake', null],
  ])('%s', (_name, line, kind, address) => {
    expect(interpretCoreLine(line)).toMatchObject({ type: 'outbound-failure', kind, address });
  });

  it('a WebSocket dial attempt is a dial like a TCP one', () => {
    expect(interpretCoreLine(LAB.wsDialing)).toEqual({ type: 'dialing', sessionId: '3674192718', address: '127.0.2.5:39223' });
  });

  it('a WebSocket stream the server closed normally after the answer is no failure', () => {
    expect(interpretCoreLine(LAB.vlessWsNormalClose)).toBeNull();
    expect(interpretCoreLine(LAB.trojanWsNormalClose)).toBeNull();
  });
});

describe('parseCoreLogLine', () => {
  it('splits level, session and text', () => {
    expect(parseCoreLogLine(V2RAY_434.dialing)).toEqual({
      level: 'info',
      sessionId: '3129139338',
      text: 'v2ray.com/core/transport/internet/tcp: dialing TCP to tcp:127.0.0.1:19003',
    });
    expect(parseCoreLogLine(V2RAY_434.started)).toMatchObject({ level: 'warning', sessionId: null });
  });

  it('keeps lines without a timestamp (banner, start failures) as plain text', () => {
    expect(parseCoreLogLine(V2RAY_434.banner)).toEqual({ level: null, sessionId: null, text: V2RAY_434.banner });
    expect(parseCoreLogLine(V2RAY_434.access)).toMatchObject({ level: null, sessionId: null });
  });
});

describe('interpretCoreLine on real v2ray 4.34 lines', () => {
  it.each([
    ['started', V2RAY_434.started, { type: 'started', version: '4.34.0' }],
    ['detour', V2RAY_434.detour, { type: 'route', sessionId: '2377213378', outboundTag: 'out-rst', destination: 'tcp:127.0.0.1:9' }],
    ['dialing', V2RAY_434.dialing, { type: 'dialing', sessionId: '3129139338', address: '127.0.0.1:19003' }],
    [
      'refused after the retries',
      V2RAY_434.refused,
      { type: 'outbound-failure', sessionId: '3129139338', kind: 'refused', address: '127.0.0.1:19003' },
    ],
    ['reset right after connect', V2RAY_434.reset, { type: 'outbound-failure', sessionId: '2377213378', kind: 'reset', address: '127.0.0.1:19001' }],
    ['unresolvable host', V2RAY_434.dns, { type: 'outbound-failure', kind: 'dns', address: 'nosuchhost.invalid' }],
    ['server closes on a wrong id', V2RAY_434.vlessRejected, { type: 'outbound-failure', kind: 'handshake', address: null }],
    ['port in use at start', V2RAY_434.busy, { type: 'listen-failed', address: '127.0.0.1:18809' }],
  ])('%s', (_name, line, expected) => {
    expect(interpretCoreLine(line)).toMatchObject(expected);
  });

  it('ignores closes the client caused and lines that are only worth logging', () => {
    expect(interpretCoreLine(V2RAY_434.cancelled)).toBeNull();
    expect(interpretCoreLine(V2RAY_434.inboundEnds)).toBeNull();
    expect(interpretCoreLine(V2RAY_434.access)).toBeNull();
    expect(interpretCoreLine(V2RAY_434.banner)).toBeNull();
  });

  it('shortens the error chain to its causes', () => {
    const event = interpretCoreLine(V2RAY_434.refused);
    expect(event).toMatchObject({ detail: 'failed to find an available destination > [dial tcp 127.0.0.1:19003: connect: connection refused] > all retry attempts failed' });
  });
});

describe('interpretCoreLine on other cores', () => {
  it('reads Xray lines (no package prefix) the same way', () => {
    expect(interpretCoreLine('2025/01/01 10:00:00 [Info] [1234] app/dispatcher: taking detour [proxy] for [tcp:example.com:443]')).toMatchObject({
      type: 'route',
      outboundTag: 'proxy',
    });
    expect(
      interpretCoreLine(
        '2025/01/01 10:00:00.123456 [Warning] [1234] app/proxyman/outbound: failed to process outbound traffic > proxy/vless/outbound: failed to find an available destination > common/retry: [dial tcp 10.0.0.1:443: i/o timeout] > common/retry: all retry attempts failed',
      ),
    ).toMatchObject({ kind: 'timeout', address: '10.0.0.1:443' });
    expect(interpretCoreLine('2025/01/01 10:00:00 [Warning] core: Xray 1.8.24 started')).toEqual({ type: 'started', version: '1.8.24' });
  });
});

describe('outboundFailureKind', () => {
  it.each([
    ['dial tcp 1.2.3.4:443: connect: connection refused', 'refused'],
    ['read tcp 10.0.0.2:5000->1.2.3.4:443: read: connection reset by peer', 'reset'],
    ['write tcp 10.0.0.2:5000->1.2.3.4:443: write: broken pipe', 'reset'],
    ['dial tcp 1.2.3.4:443: i/o timeout', 'timeout'],
    ['dial tcp: lookup a.example on 10.0.0.1:53: i/o timeout', 'dns'],
    ['dial tcp: lookup a.example: no such host', 'dns'],
    ['transport/internet/tls: failed to dial > tls: first record does not look like a TLS handshake', 'tls'],
    ['x509: certificate signed by unknown authority', 'tls'],
    ['dial tcp [2001:db8::1]:443: connect: network is unreachable', 'network'],
    ['proxy/trojan: connection ends > EOF', 'handshake'],
    ['proxy/vmess/outbound: connection ends > context canceled', null],
  ])('%s → %s', (detail, kind) => {
    expect(outboundFailureKind(detail)).toBe(kind);
  });
});

describe('remoteAddressIn', () => {
  it.each([
    ['[dial tcp 127.0.0.1:19003: connect: connection refused]', '127.0.0.1:19003'],
    ['read tcp 127.0.0.1:58006->127.0.0.1:19001: read: connection reset by peer', '127.0.0.1:19001'],
    ['dial tcp [::1]:8443: connect: connection refused', '[::1]:8443'],
    ['dial tcp: lookup nosuchhost.invalid on 10.255.255.53:53: no such host', 'nosuchhost.invalid'],
    ['EOF', null],
  ])('%s', (detail, address) => {
    expect(remoteAddressIn(detail)).toBe(address);
  });
});

// Real lines written by sing-box 1.14.1 built here (loopback servers), colour codes as it writes them into a pipe.
const ESC = String.fromCharCode(27);
const SING_BOX_1141 = {
  started: `${ESC}[36mINFO${ESC}[0m[0000] sing-box started (0.00s)`,
  refused: `${ESC}[31mERROR${ESC}[0m[0000] [${ESC}[38;5;84m1556398227${ESC}[0m 1ms] connection: open connection to example.com:80 using outbound/trojan[proxy]: dial tcp 127.0.0.1:1: connect: connection refused`,
  reset: '+0000 2026-12-01 22:36:58 ERROR [2268145303 8ms] connection: open connection to example.com:80 using outbound/trojan[reset]: read tcp 127.0.0.1:51496->127.0.0.1:18201: read: connection reset by peer',
  timeout: '+0000 2026-12-01 22:37:13 ERROR [3276352496 15.1s] connection: open connection to example.com:80 using outbound/trojan[silent]: context deadline exceeded',
  quicRefused: '+0000 2026-12-01 22:37:13 ERROR [538265710 2ms] connection: open connection to example.com:80 using outbound/tuic[tuic]: open connection: sendmsg: connection refused',
  busy: `${ESC}[31mFATAL${ESC}[0m[0000] start service: start inbound/mixed[in]: listen tcp 127.0.0.1:18181: bind: address already in use`,
  inbound: `${ESC}[36mINFO${ESC}[0m[0000] [${ESC}[38;5;84m1556398227${ESC}[0m 0ms] inbound/mixed[in]: inbound connection to example.com:80`,
};

describe('sing-box lines', () => {
  it('reads the level and session through the colour codes', () => {
    expect(parseCoreLogLine(SING_BOX_1141.refused)).toEqual({
      level: 'error',
      sessionId: '1556398227',
      text: 'connection: open connection to example.com:80 using outbound/trojan[proxy]: dial tcp 127.0.0.1:1: connect: connection refused',
    });
  });

  it.each<[string, string, ReturnType<typeof interpretCoreLine>]>([
    ['started', SING_BOX_1141.started, { type: 'started', version: '' }],
    ['a refused dial, with the outbound it names', SING_BOX_1141.refused, { type: 'outbound-failure', sessionId: '1556398227', kind: 'refused', address: '127.0.0.1:1', detail: expect.stringContaining('connection refused') as unknown as string, outboundTag: 'proxy' }],
    ['a reset', SING_BOX_1141.reset, { type: 'outbound-failure', sessionId: '2268145303', kind: 'reset', address: '127.0.0.1:18201', detail: expect.any(String) as unknown as string, outboundTag: 'reset' }],
    ['a TLS server that never answers', SING_BOX_1141.timeout, { type: 'outbound-failure', sessionId: '3276352496', kind: 'timeout', address: null, detail: 'context deadline exceeded', outboundTag: 'silent' }],
    ['QUIC to a closed UDP port', SING_BOX_1141.quicRefused, { type: 'outbound-failure', sessionId: '538265710', kind: 'refused', address: null, detail: expect.any(String) as unknown as string, outboundTag: 'tuic' }],
    ['a port already taken', SING_BOX_1141.busy, { type: 'listen-failed', address: '127.0.0.1:18181', detail: 'listen tcp 127.0.0.1:18181: bind: address already in use' }],
    ['an ordinary connection line', SING_BOX_1141.inbound, null],
  ])('%s', (_name, line, event) => {
    expect(interpretCoreLine(line)).toEqual(event);
  });
});
