import { memo, useSyncExternalStore } from 'react';
import { flagSvg, flagsLoaded, subscribeFlags } from './flags';

/**
 * A country's flag: an image whose accessible name is the country's name, with the ISO code in
 * `data-country`. The SVG comes from the package's own constants, never from the network.
 */
function FlagImage({ code, name }: { code: string; name: string }) {
  const loaded = useSyncExternalStore(subscribeFlags, flagsLoaded, flagsLoaded);
  const svg = loaded ? flagSvg(code) : null;
  return (
    <span
      className={svg ? 'flag' : 'flag flag-placeholder'}
      role="img"
      aria-label={name}
      data-country={code}
      title={name}
      dangerouslySetInnerHTML={svg ? { __html: svg } : undefined}
    >
      {svg ? undefined : code}
    </span>
  );
}

export const Flag = memo(FlagImage);
