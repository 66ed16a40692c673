import type { KafkaPlan, KafkaTopicSpec } from '../../policy';
import { code } from '../format/markdown';
import { byKey, pairsOf, type ResourceChange, settingChanges } from './risk';

/**
 * Kafka topic changes, keyed like the component's children (source-topic, retry-topic-N, dlt).
 * Topic config updates in place; partitions can only grow (fewer means a new topic, its records
 * lost); a new name or replication factor replaces the topic. A removed retry topic is retained.
 */

const topicKey = (topic: KafkaTopicSpec) =>
  topic.role === 'retry' ? `retry-topic-${topic.level}` : topic.role;
const WORD: Record<KafkaTopicSpec['role'], string> = {
  source: 'source topic',
  retry: 'retry topic',
  'dead-letter': 'dead-letter topic',
};

function replaced(was: KafkaTopicSpec, now: KafkaTopicSpec): string | undefined {
  if (was.name !== now.name) return `new name ${code(now.name)}`;
  if (now.partitions < was.partitions)
    return `partitions ${was.partitions} → ${now.partitions}: a topic cannot shrink`;
  if (now.replicationFactor !== was.replicationFactor)
    return `replication factor ${was.replicationFactor} → ${now.replicationFactor} cannot change in place`;
  return undefined;
}

export function kafkaChanges(before: KafkaPlan | undefined, after: KafkaPlan | undefined): ResourceChange[] {
  const declared = (plan: KafkaPlan | undefined) =>
    byKey(
      (plan?.topics ?? []).filter((topic) => topic.declare),
      topicKey,
    );
  const old = declared(before);
  const next = declared(after);
  const out: ResourceChange[] = [];
  for (const { was, now } of pairsOf(old, next)) {
    if (!was && now) {
      out.push({
        kind: 'topic',
        name: now.name,
        change: 'create',
        risk: 'safe',
        note: `new ${WORD[now.role]}`,
      });
      continue;
    }
    if (was && !now) {
      out.push(
        was.role === 'retry'
          ? {
              kind: 'topic',
              name: was.name,
              change: 'retain',
              risk: 'caution',
              note: 'retry topic left on the broker (retainOnDelete): its records are not lost, but are delivered only while a retry consumer still reads it',
            }
          : {
              kind: 'topic',
              name: was.name,
              change: 'delete',
              risk: 'data-loss',
              note: `deletes the ${WORD[was.role]}: its records would be lost (protected: pulumi up refuses)`,
            },
      );
      continue;
    }
    if (!was || !now) continue;
    const why = replaced(was, now);
    if (why) {
      const guard = now.role === 'retry' ? '' : ' (protected: pulumi up refuses until it is migrated)';
      out.push({
        kind: 'topic',
        name: now.name,
        change: 'replace',
        risk: 'data-loss',
        note: `replaces topic ${code(was.name)} (${why}): its records would be lost${guard}`,
      });
      continue;
    }
    const changes = settingChanges(
      { ...was.config, partitions: was.partitions },
      { ...now.config, partitions: now.partitions },
    );
    if (changes.length === 0) continue;
    const grew = now.partitions > was.partitions;
    const shorter = Number(now.config['retention.ms']) < Number(was.config['retention.ms']);
    out.push({
      kind: 'topic',
      name: now.name,
      change: 'update',
      risk: grew || shorter ? 'caution' : 'safe',
      note: [
        `topic updated in place: ${changes.join(', ')}`,
        grew ? 'keys move to other partitions, so per-key order does not hold across the change' : '',
        shorter ? 'records older than the new retention are deleted' : '',
      ]
        .filter(Boolean)
        .join('; '),
    });
  }
  return out;
}
