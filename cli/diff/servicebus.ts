import type { ServiceBusEntitySpec, ServiceBusPlan } from '../../policy';
import { code } from '../format/markdown';
import { byKey, pairsOf, type ResourceChange, settingChanges } from './risk';

/**
 * Service Bus entity changes, keyed like the component's children (main-queue, retry-queue,
 * subscription). Most properties update in place; a new name or topic, or a change to one of the
 * properties Azure fixes at creation, replaces the entity and loses its messages. Every entity
 * holds messages and is protected.
 */

/** Azure refuses to change these after creation (the provider replaces the entity). */
const FIXED_AT_CREATION = ['requiresDuplicateDetection', 'requiresSession', 'enablePartitioning'];

const entityKey = (entity: ServiceBusEntitySpec) =>
  entity.kind === 'subscription' ? 'subscription' : entity.role === 'main' ? 'main-queue' : 'retry-queue';
const label = (entity: ServiceBusEntitySpec) =>
  entity.topic ? `${entity.topic}/${entity.name}` : entity.name;

type Properties = Record<string, string | number | boolean | undefined>;

export function serviceBusChanges(
  before: ServiceBusPlan | undefined,
  after: ServiceBusPlan | undefined,
): ResourceChange[] {
  const old = byKey(before?.entities ?? [], entityKey);
  const next = byKey(after?.entities ?? [], entityKey);
  const out: ResourceChange[] = [];
  for (const { was, now } of pairsOf(old, next)) {
    if (!was && now) {
      out.push({
        kind: now.kind,
        name: label(now),
        change: 'create',
        risk: 'safe',
        note: `new ${now.role} ${now.kind}`,
      });
      continue;
    }
    if (was && !now) {
      out.push({
        kind: was.kind,
        name: label(was),
        change: 'delete',
        risk: 'data-loss',
        note: `deletes the ${was.role} ${was.kind}: messages in it would be lost (protected: pulumi up refuses)`,
      });
      continue;
    }
    if (!was || !now) continue;
    const wasProps = was.properties as unknown as Properties;
    const nowProps = now.properties as unknown as Properties;
    const fixed = FIXED_AT_CREATION.filter((property) => wasProps[property] !== nowProps[property]);
    if (label(was) !== label(now) || fixed.length > 0) {
      const why =
        label(was) !== label(now)
          ? `new name ${code(label(now))}`
          : `${fixed.join(', ')} cannot change after creation`;
      out.push({
        kind: now.kind,
        name: label(now),
        change: 'replace',
        risk: 'data-loss',
        note: `replaces ${was.kind} ${code(label(was))} (${why}): messages in it would be lost (protected: pulumi up refuses)`,
      });
      continue;
    }
    const changes = settingChanges(wasProps, nowProps);
    if (changes.length > 0)
      out.push({
        kind: now.kind,
        name: label(now),
        change: 'update',
        risk: 'safe',
        note: `updated in place: ${changes.join(', ')}`,
      });
  }
  return out;
}
