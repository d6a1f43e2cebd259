/** A QR code of a share link as SVG markup (drawn inline, like the flags: no network, no data: URL). */
import QRCode from 'qrcode';

/** Null when the text does not fit in a QR code (very long subscription addresses). */
export async function qrSvg(text: string): Promise<string | null> {
  try {
    return await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  } catch {
    return null;
  }
}
