import type { Security, Server } from '../../shared/domain/server';
import type { CoreProfile } from './capabilities';

/**
 * How the core checks a TLS server's certificate, decided from what the entry asks (a pin, a name
 * to verify by, permission to skip verification) and what the core can do. Pure; the table of
 * rules is in cert-check.test.ts.
 *
 * The choice for a core that cannot pin (v2ray, Xray before 26.1.18): a pinned server usually
 * has a self-signed certificate, which normal verification refuses, so the only way to reach it
 * is to skip verification. That is done only when the entry itself also allows it
 * (`allowInsecure=1` next to `pcs`, as panels write for clients that cannot pin): the link's
 * author accepted it for such clients, and the log says the pin was not applied. An entry that
 * asks for the pin alone is reported unsupported instead, with the core that can run it: skipping
 * verification would silently make a man in the middle invisible where the link asked for the
 * opposite.
 *
 * A name to verify by (`vcn`) that the core cannot apply is not a reason to skip verification:
 * the core verifies against the SNI as usual, which is as strict, and the log says so.
 */
export interface CertificateCheck {
  /** Fields for the core's tlsSettings. */
  fields: { pinnedPeerCertSha256?: string; verifyPeerCertByName?: string; allowInsecure?: true };
  /** What the entry asked that this core does not apply, for the connection log; null when all is. */
  notApplied: string | null;
  /** Why the core cannot reach this server the way the entry asks; null when it can. */
  unsupported: string | null;
}

/** The Xray releases that brought the two fields, named in the messages. */
export const PIN_HINT = 'Xray ≥ 26.1.18';
export const VERIFY_NAME_HINT = 'Xray ≥ 26.1.31';

export function certificateCheck(security: Security, features: ReadonlySet<string>): CertificateCheck {
  const canPin = features.has('tls-pinned-cert');
  const canVerifyName = features.has('tls-verify-name');
  const canSkip = features.has('tls-allow-insecure');
  const pins = security.pinnedCertSha256 ?? [];
  const name = security.verifyName;
  const fields: CertificateCheck['fields'] = {};
  const notes: string[] = [];

  if (pins.length && canPin) {
    // Xray's config splits the field on `,` (infra/conf/transport_internet.go); the `~` of its
    // share links is refused there as bad hex (both proven in cert-pin-xray.int.test.ts).
    fields.pinnedPeerCertSha256 = pins.join(',');
  } else if (pins.length) {
    if (!(security.allowInsecure && canSkip)) {
      return {
        fields: {},
        notApplied: null,
        unsupported: `the server pins its certificate (pcs) and this core cannot check a pin (${PIN_HINT} can); connecting without verifying the certificate would be less safe than the link asks`,
      };
    }
    fields.allowInsecure = true;
    notes.push(`the certificate pin (pcs) is not applied (it needs ${PIN_HINT}): the certificate is not verified, as the link allows`);
  }

  if (name && canVerifyName) fields.verifyPeerCertByName = name;
  // allowInsecure beside a check the core applies would only weaken it (and Xray ≥ 26.2.6 refuses
  // the whole config with it); without a core that skips verification the certificate is verified.
  const checked = fields.pinnedPeerCertSha256 !== undefined || fields.verifyPeerCertByName !== undefined;
  if (!checked && security.allowInsecure && canSkip) fields.allowInsecure = true;
  if (name && !canVerifyName && !fields.allowInsecure) {
    const instead = fields.pinnedPeerCertSha256 ? 'the pin is checked without it' : 'the certificate is verified against the server name instead';
    notes.push(`the name to verify the certificate by (vcn ${name}) is not applied (it needs ${VERIFY_NAME_HINT}): ${instead}`);
  }

  return { fields, notApplied: notes.length ? notes.join('; ') : null, unsupported: null };
}

/** What of the server's certificate check this core leaves out, for the connection log; null when nothing. */
export function certificateNotApplied(server: Server, core: CoreProfile): string | null {
  if (server.security.type !== 'tls') return null;
  return certificateCheck(server.security, core.capabilities.features).notApplied;
}
