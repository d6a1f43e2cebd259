import type { TFunction } from 'i18next';
import type { ProblemTopic } from '../../../shared/domain/problem';
import { type Formatters, isolate } from '../format/format';

/**
 * What a problem the engine raised means for the user, in their language, from its topic alone
 * (the engine's English sentence is only its detail). File names are isolated so a right-to-left
 * sentence keeps its order around them.
 */
export function problemText(t: TFunction, format: Formatters, topic: ProblemTopic): string {
  switch (topic.kind) {
    case 'file-unreadable':
      return t(topic.recovered === 'backup' ? 'problems.fileUnreadableBackup' : 'problems.fileUnreadableEmpty', { file: isolate(topic.file) });
    case 'save-failed':
      return t('problems.saveFailed', { file: isolate(topic.file) });
    case 'no-core':
      return t('problems.noCore');
    case 'system-wide':
      return t('problems.systemWide');
    case 'kill-switch-left':
      return topic.since === null ? t('killSwitch.leftUnknown') : t('killSwitch.left', { since: format.dateTime(topic.since) });
    case 'test-budget':
      return t('problems.testBudget', { size: format.bytes(topic.capBytesPerDay) });
    case 'per-app-unmatched':
      return t('problems.perAppUnmatched', { apps: topic.entries.map(isolate).join(', ') });
  }
}
