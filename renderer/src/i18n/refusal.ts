import type { TFunction } from 'i18next';
import type { RefusalCode } from '../../../shared/domain/refusal';
import type { ValidationProblem } from '../../../shared/domain/validation';
import { validationText } from './validation';

/**
 * What the user reads for a refused request: the sentence for its code in their language, or the
 * host's own words when it named no code (an older host, a refusal the engine gives no code).
 */
export function refusalText(t: TFunction, refusal: { error: string; code?: RefusalCode; validation?: ValidationProblem }): string {
  // With the problem itself, the words say exactly what is wrong: what could not be read, or the value refused.
  if (refusal.code === 'nothing-to-import' && refusal.validation) return t('desktop.imports.unreadableBody', { reason: validationText(t, refusal.validation) });
  if (refusal.code === 'invalid-setting' && refusal.validation) return validationText(t, refusal.validation);
  return refusal.code ? t(`refusal.${refusal.code}`) : refusal.error;
}
