/**
 * Finds a QR code in a picture (a file, the clipboard's image, a screenshot) with jsQR, in the
 * page: the picture never leaves it. Null when there is no code to read. jsQR is loaded on the
 * first use: most windows never read a code, and the window's start should not parse it.
 */

/** Bigger pictures are scaled down first: a QR code stays readable, and the search stays quick. */
const MAX_SIDE = 2400;

export async function decodeQr(image: Blob): Promise<string | null> {
  const bitmap = await createImageBitmap(image);
  try {
    const scale = Math.min(1, MAX_SIDE / Math.max(bitmap.width, bitmap.height));
    const width = Math.max(1, Math.round(bitmap.width * scale));
    const height = Math.max(1, Math.round(bitmap.height * scale));
    const canvas = new OffscreenCanvas(width, height);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('no 2D canvas');
    context.drawImage(bitmap, 0, 0, width, height);
    const pixels = context.getImageData(0, 0, width, height);
    const { default: jsQR } = await import('jsqr');
    // Light-on-dark codes (dark themes, some channel posts) are read too.
    return jsQR(pixels.data, width, height, { inversionAttempts: 'attemptBoth' })?.data ?? null;
  } finally {
    bitmap.close();
  }
}

/** A `data:image/png;base64,…` URL (the desktop app's screenshot) as a Blob, without fetching it. */
export function dataUrlToBlob(url: string): Blob {
  const comma = url.indexOf(',');
  const type = /^data:([^;,]+)/.exec(url)?.[1] ?? 'image/png';
  const bytes = Uint8Array.from(atob(url.slice(comma + 1)), (c) => c.charCodeAt(0));
  return new Blob([bytes], { type });
}

/** The first image on the clipboard, or null when it holds none (or may not be read here). */
export async function clipboardImage(): Promise<Blob | null> {
  const items = await navigator.clipboard.read();
  for (const item of items) {
    const type = item.types.find((t) => t.startsWith('image/'));
    if (type) return item.getType(type);
  }
  return null;
}
