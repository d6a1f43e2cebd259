import type { DesktopCapturer, Screen } from 'electron';

/**
 * One picture of each screen, at its full resolution (a QR code in a corner must keep its
 * modules), for the page to look for a QR code in. Asked for only after the user agreed in the
 * page; nothing is written anywhere. macOS shows its own screen-recording prompt the first time.
 */
export async function captureScreens(capturer: Pick<DesktopCapturer, 'getSources'>, screen: Pick<Screen, 'getAllDisplays'>): Promise<{ screens: string[] }> {
  const largest = screen.getAllDisplays().reduce(
    (size, display) => ({
      width: Math.max(size.width, Math.round(display.size.width * display.scaleFactor)),
      height: Math.max(size.height, Math.round(display.size.height * display.scaleFactor)),
    }),
    { width: 0, height: 0 },
  );
  const sources = await capturer.getSources({ types: ['screen'], thumbnailSize: largest.width > 0 ? largest : { width: 1920, height: 1080 } });
  const screens = sources.map((source) => source.thumbnail).filter((image) => !image.isEmpty()).map((image) => image.toDataURL());
  if (screens.length === 0) throw new Error('the screen could not be captured (on macOS, allow screen recording for this app in System Settings)');
  return { screens };
}
