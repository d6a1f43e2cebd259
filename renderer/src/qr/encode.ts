/**
 * A QR code of a share link as SVG markup (drawn inline, like the flags: no network, no data: URL).
 * The encoder is loaded on the first code shown, not with the window.
 */

/** Null when the text does not fit in a QR code (very long subscription addresses). */
export async function qrSvg(text: string): Promise<string | null> {
  const { default: QRCode } = await import('qrcode');
  try {
    return await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  } catch {
    return null;
  }
}
