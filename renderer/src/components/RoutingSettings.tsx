/**
 * The Routing page of Settings: the region preset with its data's date, the LAN and ad switches,
 * the user's own rules (ordered: the first that matches wins), hosts and the two resolvers. The
 * form holds text; `routingPatchFromDraft` turns it into the settings' shape, and the shared
 * schema names every invalid entry before anything is sent.
 */
import { useTranslation } from 'react-i18next';
import { DOMAIN_STRATEGIES, REGION_PRESETS, ROUTE_OUTBOUNDS, type RoutingRule } from '../../../shared/routing';
import type { Settings, SettingsPatch } from '../../../shared/settings';
import { useAppStore } from '../store/context';
import type { RuleSetStatus } from '../../../shared/domain/routing';
import type { RuleSet } from '../../../shared/rule-sets';
import { RuleSetsField } from './RuleSetsField';
import { isolate } from '../format/format';
import { useFormat } from '../hooks/useFormat';
import { TechnicalText } from './TechnicalText';

export interface RuleDraft {
  /** Stable across reordering, for React's keys. */
  key: number;
  outbound: RoutingRule['outbound'];
  domain: string;
  ip: string;
  port: string;
}

export interface RoutingDraft {
  preset: Settings['routing']['preset'];
  bypassLan: boolean;
  blockAds: boolean;
  domainStrategy: Settings['routing']['domainStrategy'];
  rules: RuleDraft[];
  /** "name address" per line. */
  hosts: string;
  dnsRemote: string;
  dnsDomestic: string;
  ruleSets: RuleSet[];
}

let nextKey = 1;

export function routingDraftOf(settings: Settings): RoutingDraft {
  const { routing, dns } = settings;
  return {
    preset: routing.preset,
    bypassLan: routing.bypassLan,
    blockAds: routing.blockAds,
    domainStrategy: routing.domainStrategy,
    rules: routing.rules.map((rule) => ({ key: nextKey++, outbound: rule.outbound, domain: rule.domain.join('\n'), ip: rule.ip.join('\n'), port: rule.port ?? '' })),
    hosts: Object.entries(routing.hosts)
      .map(([name, address]) => `${name} ${address}`)
      .join('\n'),
    dnsRemote: dns.remote,
    dnsDomestic: dns.domestic,
    ruleSets: routing.ruleSets,
  };
}

const lines = (text: string) =>
  text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);

/**
 * The routing and dns parts of a settings patch, each only when it changed. Hosts lines that are
 * not "name address" are returned by line number (1-based) instead of being guessed at.
 */
export function routingPatchFromDraft(draft: RoutingDraft, settings: Settings): { patch: Pick<SettingsPatch, 'routing' | 'dns'>; badHostLines: number[] } {
  const hosts: Record<string, string> = {};
  const badHostLines: number[] = [];
  draft.hosts.split('\n').forEach((line, i) => {
    const parts = line.trim().split(/\s+/).filter(Boolean);
    if (parts.length === 0) return;
    if (parts.length !== 2) badHostLines.push(i + 1);
    else hosts[parts[0] as string] = parts[1] as string;
  });
  const routing = {
    preset: draft.preset,
    bypassLan: draft.bypassLan,
    blockAds: draft.blockAds,
    domainStrategy: draft.domainStrategy,
    rules: draft.rules.map((rule) => ({
      domain: lines(rule.domain),
      ip: lines(rule.ip),
      ...(rule.port.trim() ? { port: rule.port.replace(/\s+/g, '') } : {}),
      outbound: rule.outbound,
    })),
    hosts,
    ruleSets: draft.ruleSets,
  };
  const dns = { remote: draft.dnsRemote.trim(), domestic: draft.dnsDomestic.trim() };
  const patch: Pick<SettingsPatch, 'routing' | 'dns'> = {};
  if (JSON.stringify(routing) !== JSON.stringify(settings.routing)) patch.routing = routing;
  if (JSON.stringify(dns) !== JSON.stringify(settings.dns)) patch.dns = dns;
  return { patch, badHostLines };
}

/** The messages under one place of the form ("routing.rules.2" and what lies below it). */
function messagesAt(errors: Record<string, string>, prefix: string): string[] {
  return Object.entries(errors)
    .filter(([path]) => path === prefix || path.startsWith(`${prefix}.`))
    .map(([, message]) => message);
}

function Errors({ messages, id }: { messages: string[]; id: string }) {
  if (messages.length === 0) return null;
  return (
    <ul className="field-error routing-errors" id={id}>
      {messages.map((message) => (
        <li key={message} dir="ltr">
          {message}
        </li>
      ))}
    </ul>
  );
}

const NO_STATUSES: RuleSetStatus[] = [];

export function RoutingSettings({ draft, onChange, errors }: { draft: RoutingDraft; onChange: (draft: RoutingDraft) => void; errors: Record<string, string> }) {
  const { t } = useTranslation();
  const format = useFormat();
  const view = useAppStore((s) => s.routing);
  const groups = useAppStore((s) => s.settings.groups);
  const set = <K extends keyof RoutingDraft>(key: K, value: RoutingDraft[K]) => onChange({ ...draft, [key]: value });
  const setRule = (index: number, change: Partial<RuleDraft>) => set('rules', draft.rules.map((rule, i) => (i === index ? { ...rule, ...change } : rule)));
  const move = (index: number, by: -1 | 1) => {
    const rules = [...draft.rules];
    const [rule] = rules.splice(index, 1);
    rules.splice(index + by, 0, rule as RuleDraft);
    set('rules', rules);
  };

  return (
    <div className="routing-settings">
      <fieldset>
        {/* One field: its label names the group (a legend repeated it: "Region / Region"). */}
        <label className="field">
          <span>{t('routing.preset')}</span>
          <select value={draft.preset} onChange={(e) => set('preset', e.target.value as RoutingDraft['preset'])}>
            {REGION_PRESETS.map((preset) => (
              <option key={preset} value={preset}>
                {t(`routing.presetName.${preset}`)}
              </option>
            ))}
          </select>
          <span className="hint">{t('routing.presetHint')}</span>
          <span className="hint">
            {view.dataDate && view.dataSource ? t('routing.dataDate', { date: format.day(view.dataDate), source: isolate(view.dataSource) }) : t('routing.noData')}
          </span>
        </label>
        {view.notices.length > 0 && (
          <ul className="routing-notices" role="status">
            {view.notices.map((notice) => (
              <li key={notice} dir="ltr">
                {notice}
              </li>
            ))}
          </ul>
        )}
        <label className="check-field">
          <input type="checkbox" checked={draft.bypassLan} onChange={(e) => set('bypassLan', e.target.checked)} />
          <span>{t('routing.bypassLan')}</span>
          <span className="hint">{t('routing.bypassLanHint')}</span>
        </label>
        <label className="check-field">
          <input type="checkbox" checked={draft.blockAds} onChange={(e) => set('blockAds', e.target.checked)} />
          <span>{t('routing.blockAds')}</span>
          <span className="hint">{t('routing.blockAdsHint')}</span>
        </label>
        <label className="field">
          <span>{t('routing.strategy')}</span>
          <select value={draft.domainStrategy} onChange={(e) => set('domainStrategy', e.target.value as RoutingDraft['domainStrategy'])}>
            {DOMAIN_STRATEGIES.map((strategy) => (
              <option key={strategy} value={strategy}>
                {t(`routing.strategyName.${strategy}`)}
              </option>
            ))}
          </select>
        </label>
      </fieldset>

      <RuleSetsField sets={draft.ruleSets} statuses={view.ruleSets ?? NO_STATUSES} onChange={(sets) => set('ruleSets', sets)} errors={messagesAt(errors, 'routing.ruleSets')} />

      <fieldset>
        <legend>{t('routing.rules')}</legend>
        <p className="hint">{t('routing.rulesHint')}</p>
        {draft.rules.length === 0 && <p className="muted">{t('routing.noRules')}</p>}
        <ol className="routing-rules">
          {draft.rules.map((rule, i) => {
            const n = i + 1;
            const problems = messagesAt(errors, `routing.rules.${i}`);
            return (
              <li key={rule.key} className="routing-rule" aria-label={t('routing.rule', { n })} aria-invalid={problems.length > 0}>
                <div className="routing-rule-head">
                  <strong>{t('routing.rule', { n })}</strong>
                  <label>
                    <span className="visually-hidden">{t('routing.outbound')}</span>
                    <select value={rule.outbound} onChange={(e) => setRule(i, { outbound: e.target.value as RuleDraft['outbound'] })}>
                      {ROUTE_OUTBOUNDS.map((outbound) => (
                        <option key={outbound} value={outbound}>
                          {t('routing.outbound')}: {t(`routing.outboundName.${outbound}`)}
                        </option>
                      ))}
                      {groups.map((group) => (
                        <option key={group.name} value={`group:${group.name}`}>
                          {t('routing.outbound')}: {t('groups.outbound', { name: group.name })}
                        </option>
                      ))}
                    </select>
                  </label>
                  <button type="button" className="button small" disabled={i === 0} aria-label={t('routing.moveUp', { n })} onClick={() => move(i, -1)}>
                    ↑
                  </button>
                  <button type="button" className="button small" disabled={i === draft.rules.length - 1} aria-label={t('routing.moveDown', { n })} onClick={() => move(i, 1)}>
                    ↓
                  </button>
                  <button type="button" className="button small" aria-label={t('routing.remove', { n })} onClick={() => set('rules', draft.rules.filter((_, j) => j !== i))}>
                    ×
                  </button>
                </div>
                <div className="field-row">
                  <label className="field">
                    <span>{t('routing.domains')}</span>
                    <textarea dir="ltr" rows={2} spellCheck={false} value={rule.domain} title={t('routing.domainsHint')} onChange={(e) => setRule(i, { domain: e.target.value })} />
                  </label>
                  <label className="field">
                    <span>{t('routing.ips')}</span>
                    <textarea dir="ltr" rows={2} spellCheck={false} value={rule.ip} title={t('routing.ipsHint')} onChange={(e) => setRule(i, { ip: e.target.value })} />
                  </label>
                  <label className="field">
                    <span>{t('routing.port')}</span>
                    <input type="text" dir="ltr" spellCheck={false} value={rule.port} placeholder="80,443,1000-2000" title={t('routing.portHint')} onChange={(e) => setRule(i, { port: e.target.value })} />
                  </label>
                </div>
                <Errors messages={problems} id={`err-routing-rule-${i}`} />
              </li>
            );
          })}
        </ol>
        <p className="hint">
          <TechnicalText text={`${t('routing.domainsHint')} · ${t('routing.ipsHint')}`} />
        </p>
        <button type="button" className="button" onClick={() => set('rules', [...draft.rules, { key: nextKey++, outbound: 'direct', domain: '', ip: '', port: '' }])}>
          {t('routing.addRule')}
        </button>
        <Errors messages={messagesAt(errors, 'routing.rules').filter((m) => !draft.rules.some((_, i) => messagesAt(errors, `routing.rules.${i}`).includes(m)))} id="err-routing-rules" />
      </fieldset>

      <fieldset>
        <label className="field">
          <span>{t('routing.hosts')}</span>
          <textarea dir="ltr" rows={3} spellCheck={false} value={draft.hosts} aria-invalid={messagesAt(errors, 'routing.hosts').length > 0} onChange={(e) => set('hosts', e.target.value)} />
          <span className="hint">{t('routing.hostsHint')}</span>
        </label>
        <Errors messages={messagesAt(errors, 'routing.hosts')} id="err-routing-hosts" />
      </fieldset>

      <fieldset>
        <legend>{t('routing.dns')}</legend>
        <label className="field">
          <span>{t('routing.remote')}</span>
          <input type="text" dir="ltr" spellCheck={false} value={draft.dnsRemote} aria-invalid={messagesAt(errors, 'dns.remote').length > 0} onChange={(e) => set('dnsRemote', e.target.value)} />
          <span className="hint">{t('routing.remoteHint')}</span>
        </label>
        <Errors messages={messagesAt(errors, 'dns.remote')} id="err-dns-remote" />
        <label className="field">
          <span>{t('routing.domestic')}</span>
          <input type="text" dir="ltr" spellCheck={false} value={draft.dnsDomestic} aria-invalid={messagesAt(errors, 'dns.domestic').length > 0} onChange={(e) => set('dnsDomestic', e.target.value)} />
          <span className="hint">{t('routing.domesticHint')}</span>
        </label>
        <Errors messages={messagesAt(errors, 'dns.domestic')} id="err-dns-domestic" />
      </fieldset>
      <p className="hint">{t('routing.applies')}</p>
    </div>
  );
}
