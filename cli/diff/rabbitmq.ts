import type { RabbitMqPlan, RabbitQueueSpec } from '../../policy';
import { QUORUM_REPLICAS_ARGUMENT } from '../../policy/plan/replication';
import { code } from '../format/markdown';
import { byKey, pairsOf, type ResourceChange, settingChanges } from './risk';

/**
 * RabbitMQ resource changes. Identity is the component's child key (role and level), so a new
 * name for the same role is a replacement, as Pulumi sees it:
 * - Queue: every input (name, vhost, arguments) replaces it, delete first: its messages are
 *   lost. Arguments hold only x-queue-type, so this happens on a rename or a vhost move, never
 *   on a delay change. Main queue and dead-letter queue are protected. The replica count
 *   (x-quorum-initial-group-size) is the exception: the component ignores it on an existing
 *   queue, so a change applies to new queues only and the old ones keep their members.
 * - Policy: definition, pattern and priority update in place; this is where delays live.
 * - Binding: any change replaces it (delete first); it holds no messages.
 * - A removed wait queue (and its policy and binding) is retained on the broker, so what waits
 *   in it still returns to the main queue.
 */

type Queue = RabbitQueueSpec;
const queueKey = (queue: Pick<Queue, 'role' | 'level'>) =>
  queue.role === 'wait' ? `wait-${queue.level}` : queue.role === 'main' ? 'main-queue' : 'dlq';
const QUEUE_WORD: Record<Queue['role'], string> = {
  main: 'main queue',
  wait: 'wait queue',
  'dead-letter': 'dead-letter queue',
};

function queues(before: RabbitMqPlan | undefined, after: RabbitMqPlan | undefined): ResourceChange[] {
  const old = byKey(before?.queues ?? [], queueKey);
  const next = byKey(after?.queues ?? [], queueKey);
  const out: ResourceChange[] = [];
  for (const { was, now } of pairsOf(old, next)) {
    if (!was && now) {
      out.push({
        kind: 'queue',
        name: now.name,
        change: 'create',
        risk: 'safe',
        note: `new ${QUEUE_WORD[now.role]}`,
      });
    } else if (was && !now) {
      out.push(
        was.role === 'wait'
          ? {
              kind: 'queue',
              name: was.name,
              change: 'retain',
              risk: 'caution',
              note: `wait queue left on the broker (retainOnDelete): messages in it still return to ${code(before?.mainQueue ?? '')}; delete it by hand once empty`,
            }
          : {
              kind: 'queue',
              name: was.name,
              change: 'delete',
              risk: 'data-loss',
              note: `deletes the ${QUEUE_WORD[was.role]}: messages in it would be lost (protected: pulumi up refuses)`,
            },
      );
    } else if (was && now) {
      const { [QUORUM_REPLICAS_ARGUMENT]: wasReplicas, ...wasArguments } = was.arguments;
      const { [QUORUM_REPLICAS_ARGUMENT]: nowReplicas, ...nowArguments } = now.arguments;
      const identity = (queue: Queue, vhost: string | undefined, args: Queue['arguments']) =>
        JSON.stringify([queue.name, vhost, queue.durable, queue.autoDelete, args]);
      if (identity(was, before?.vhost, wasArguments) === identity(now, after?.vhost, nowArguments)) {
        if (wasReplicas !== nowReplicas)
          out.push({
            kind: 'queue',
            name: now.name,
            change: 'update',
            risk: 'caution',
            note: `replica count ${wasReplicas ?? '(unset)'} → ${nowReplicas ?? '(unset)'} is for queues declared from now on: this queue keeps its members and its messages; move them with rabbitmq-queues grow/shrink (docs/replication.md)`,
          });
      } else {
        const what = [
          was.name !== now.name ? `new name ${code(now.name)}` : '',
          before?.vhost !== after?.vhost
            ? `vhost ${code(before?.vhost ?? '')} → ${code(after?.vhost ?? '')}`
            : '',
          ...settingChanges(wasArguments, nowArguments),
        ].filter(Boolean);
        const guard = now.role === 'wait' ? '' : ' (protected: pulumi up refuses until it is migrated)';
        out.push({
          kind: 'queue',
          name: now.name,
          change: 'replace',
          risk: 'data-loss',
          note: `replaces queue ${code(was.name)} (${what.join(', ')}): messages in it would be lost${guard}`,
        });
      }
    }
  }
  return out;
}

function policies(before: RabbitMqPlan | undefined, after: RabbitMqPlan | undefined): ResourceChange[] {
  // A policy's key is its queue's: the component names the child `<queue key>-policy`.
  const keyed = (plan: RabbitMqPlan | undefined) =>
    new Map(
      (plan?.policies ?? []).map((policy) => {
        const queue = plan?.queues.find((each) => each.policy === policy.name);
        return [queue ? queueKey(queue) : policy.name, { policy, queue }] as const;
      }),
    );
  const old = keyed(before);
  const next = keyed(after);
  const out: ResourceChange[] = [];
  for (const { was, now } of pairsOf(old, next)) {
    if (!was && now) {
      out.push({ kind: 'policy', name: now.policy.name, change: 'create', risk: 'safe', note: 'new policy' });
    } else if (was && !now) {
      const retained = was.queue?.role === 'wait';
      out.push({
        kind: 'policy',
        name: was.policy.name,
        change: retained ? 'retain' : 'delete',
        risk: 'caution',
        note: retained
          ? 'policy left on the broker with its wait queue, so that queue still returns messages'
          : 'policy deleted: its queue loses its dead-lettering and limits',
      });
    } else if (was && now) {
      if (was.policy.name !== now.policy.name || before?.vhost !== after?.vhost) {
        out.push({
          kind: 'policy',
          name: now.policy.name,
          change: 'replace',
          risk: 'caution',
          note: `policy replaced (was ${code(was.policy.name)}): until the new one applies, the queue runs without its TTL, dead-lettering and limits`,
        });
        continue;
      }
      const changes = settingChanges(
        { ...was.policy.definition, pattern: was.policy.pattern, priority: was.policy.priority },
        { ...now.policy.definition, pattern: now.policy.pattern, priority: now.policy.priority },
      );
      if (changes.length === 0) continue;
      out.push({
        kind: 'policy',
        name: now.policy.name,
        change: 'update',
        ...policyRisk(was.policy.definition, now.policy.definition, now.queue?.role),
        note: `policy updated in place: ${changes.join(', ')}`,
      });
    }
  }
  return out;
}

/** The in-place updates that still touch messages already held. */
function policyRisk(
  was: Record<string, string | number>,
  now: Record<string, string | number>,
  role: Queue['role'] | undefined,
): Pick<ResourceChange, 'risk'> {
  const lower = (key: string) =>
    typeof was[key] === 'number' && (now[key] === undefined || Number(now[key]) < Number(was[key]));
  if (now.overflow === 'drop-head' && (lower('max-length') || lower('max-length-bytes')))
    return { risk: 'data-loss' };
  if (role === 'main' && lower('message-ttl')) return { risk: 'caution' };
  if (
    was['dead-letter-strategy'] !== now['dead-letter-strategy'] &&
    now['dead-letter-strategy'] === 'at-most-once'
  )
    return { risk: 'caution' };
  return { risk: 'safe' };
}

function exchanges(before: RabbitMqPlan | undefined, after: RabbitMqPlan | undefined): ResourceChange[] {
  const declared = (plan: RabbitMqPlan | undefined) =>
    byKey(
      (plan?.exchanges ?? []).filter((each) => each.declare),
      (each) => each.role,
    );
  const old = declared(before);
  const next = declared(after);
  const out: ResourceChange[] = [];
  for (const { key, was, now } of pairsOf(old, next)) {
    const source = key === 'source';
    if (!was && now)
      out.push({
        kind: 'exchange',
        name: now.name,
        change: 'create',
        risk: 'safe',
        note: `new ${now.role} exchange`,
      });
    else if (was && !now)
      out.push(
        source
          ? {
              kind: 'exchange',
              name: was.name,
              change: 'delete',
              risk: 'data-loss',
              note: 'deletes the source exchange: publishes to it fail and every other consumer loses its binding (protected)',
            }
          : {
              kind: 'exchange',
              name: was.name,
              change: 'delete',
              risk: 'caution',
              note: `${was.role} exchange deleted`,
            },
      );
    else if (was && now && JSON.stringify([was, before?.vhost]) !== JSON.stringify([now, after?.vhost]))
      out.push(
        source
          ? {
              kind: 'exchange',
              name: now.name,
              change: 'replace',
              risk: 'data-loss',
              note: `replaces the source exchange ${code(was.name)}: messages published meanwhile are dropped and other consumers' bindings go (protected)`,
            }
          : {
              kind: 'exchange',
              name: now.name,
              change: 'replace',
              risk: 'caution',
              note: `replaces exchange ${code(was.name)}: messages routed through it during the swap are dropped`,
            },
      );
  }
  return out;
}

function bindings(before: RabbitMqPlan | undefined, after: RabbitMqPlan | undefined): ResourceChange[] {
  const keyed = (plan: RabbitMqPlan | undefined) => {
    const role = (exchange: string) =>
      plan?.exchanges.find((each) => each.name === exchange)?.role ?? exchange;
    const queue = (name: string) => {
      const found = plan?.queues.find((each) => each.name === name);
      return found ? queueKey(found) : name;
    };
    return byKey(
      plan?.bindings ?? [],
      (binding) => `${role(binding.source)}-to-${queue(binding.destination)}`,
    );
  };
  const old = keyed(before);
  const next = keyed(after);
  const out: ResourceChange[] = [];
  for (const { key, was, now } of pairsOf(old, next)) {
    const label = (binding: { source: string; destination: string }) =>
      `${binding.source} → ${binding.destination}`;
    if (!was && now)
      out.push({ kind: 'binding', name: label(now), change: 'create', risk: 'safe', note: 'new binding' });
    else if (was && !now) {
      const retained = key.includes('-to-wait-');
      out.push({
        kind: 'binding',
        name: label(was),
        change: retained ? 'retain' : 'delete',
        risk: retained ? 'safe' : 'caution',
        note: retained ? 'binding left with its retained wait queue' : 'binding removed',
      });
    } else if (was && now && JSON.stringify([was, before?.vhost]) !== JSON.stringify([now, after?.vhost])) {
      const inflow = key.startsWith('source-');
      out.push({
        kind: 'binding',
        name: label(now),
        change: 'replace',
        risk: inflow ? 'caution' : 'safe',
        note: inflow
          ? `binding replaced, delete first (${settingChanges({ key: was.routingKey }, { key: now.routingKey }).join(', ') || 'source or queue moved'}): messages published in between are not routed to the queue`
          : 'binding replaced (delete first); it holds no messages',
      });
    }
  }
  return out;
}

export function rabbitMqChanges(
  before: RabbitMqPlan | undefined,
  after: RabbitMqPlan | undefined,
): ResourceChange[] {
  return [
    ...exchanges(before, after),
    ...queues(before, after),
    ...policies(before, after),
    ...bindings(before, after),
  ];
}
