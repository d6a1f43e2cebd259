import type { TFunction } from 'i18next';
import type { RefusalCode } from '../../../shared/domain/refusal';

/**
 * What the user reads for a refused request: the sentence for its code in their language, or the
 * host's own words when it named no code (an older host, a refusal the engine gives no code).
 */
export function refusalText(t: TFunction, refusal: { error: string; code?: RefusalCode }): string {
  return refusal.code ? t(`refusal.${refusal.code}`) : refusal.error;
}
