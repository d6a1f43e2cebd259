import type { TFunction } from 'i18next';
import type { ValidationProblem } from '../../../shared/domain/validation';
import { isolate } from '../format/format';

/**
 * A refused settings value in the user's language (`validation.TOPIC`), from the topic and
 * parameters the engine or the window's own check found. The values quoted (an address, a port
 * range) are isolated, so they keep their own direction inside a right-to-left sentence.
 */
export function validationText(t: TFunction, problem: Pick<ValidationProblem, 'topic' | 'params'>): string {
  const params = Object.fromEntries(Object.entries(problem.params).map(([key, value]) => [key, typeof value === 'string' ? isolate(value) : value]));
  return t(`validation.${problem.topic}`, params);
}

/** Every field's problem worded, by field path. */
export function validationTexts(t: TFunction, problems: Readonly<Record<string, ValidationProblem>>): Record<string, string> {
  return Object.fromEntries(Object.entries(problems).map(([path, problem]) => [path, validationText(t, problem)]));
}

/** A refused settings change in words: the value's problem when it came with one, else the engine's sentence. */
export function settingsRefusalText(t: TFunction, result: { error: string; validation?: ValidationProblem }): string {
  return t('settings.refused', { error: result.validation ? validationText(t, result.validation) : result.error });
}
