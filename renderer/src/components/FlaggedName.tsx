import { Fragment, memo } from 'react';
import { useTranslation } from 'react-i18next';
import { hasFlags, splitFlags } from '../../../shared/domain/name-flags';
import { countryName } from '../store/servers.selectors';
import { Flag } from './Flag';

/**
 * A server or subscription name with its emoji flags drawn as the same flag images the exit
 * country uses, each read out as the country's name in the UI language. A pair that names no
 * country stays the text it was.
 */
function FlaggedNameText({ name }: { name: string }) {
  const { i18n } = useTranslation();
  if (!hasFlags(name)) return <>{name}</>;
  return (
    <>
      {splitFlags(name).map((part, i) => {
        if ('text' in part) return <Fragment key={i}>{part.text}</Fragment>;
        const country = countryName(part.flag, i18n.language);
        return country ? <Flag key={i} code={part.flag} name={country} /> : <Fragment key={i}>{part.emoji}</Fragment>;
      })}
    </>
  );
}

export const FlaggedName = memo(FlaggedNameText);
