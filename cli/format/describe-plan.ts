import type { DeliveryRules, RangeMs, Replication, RetryPlan } from '../../policy';
import { formatDuration } from '../../policy';
import type { TargetName } from '../../policy/plan/targets';
import { plural } from '../output';

/**
 * Plan facts as rows of words, shared by the text and Markdown formats: what to say is decided
 * once, how to lay it out twice.
 */

export function range(value: RangeMs): string {
  return value.min === value.max
    ? formatDuration(value.max)
    : `${formatDuration(value.min)}–${formatDuration(value.max)}`;
}

export interface TimelineRow {
  attempt: string;
  wait: string;
  window: string;
  via: string;
}

export function timelineRows(rules: DeliveryRules, source: string): TimelineRow[] {
  const rows: TimelineRow[] = rules.stages.map((stage) => ({
    attempt: String(stage.attempt),
    wait: stage.attempt === 1 ? '—' : range(stage.waitMs),
    window: range(stage.windowMs),
    via: stage.attempt === 1 ? source : stage.via,
  }));
  rows.push({
    attempt: 'then',
    wait: '—',
    window: range(rules.retryWindowMs),
    via: `dead letter → ${rules.deadLetter}`,
  });
  return rows;
}

export function headline(plan: RetryPlan): string[] {
  const { classification: c, amplification: a } = plan;
  const transient = [
    c.transient.httpStatuses.length ? `HTTP ${compactStatuses(c.transient.httpStatuses)}` : '',
    c.transient.errorCodes.length ? `codes ${c.transient.errorCodes.join(', ')}` : '',
    c.transient.errorNames.length ? `names ${c.transient.errorNames.join(', ')}` : '',
  ].filter(Boolean);
  const permanent = [
    c.permanent.httpStatuses.length ? `HTTP ${compactStatuses(c.permanent.httpStatuses)}` : '',
    c.permanent.errorCodes.length ? `codes ${c.permanent.errorCodes.join(', ')}` : '',
    c.permanent.errorNames.length ? `names ${c.permanent.errorNames.join(', ')}` : '',
  ].filter(Boolean);
  return [
    `consumer ${plan.consumer}, maxAttempts ${plan.maxAttempts} (${plan.maxAttempts - 1} delayed retries), ordering ${plan.ordering}`,
    `transient: ${transient.join('; ') || 'nothing'}`,
    `permanent: ${permanent.join('; ') || 'nothing listed'}; anything else is ${c.unknown}`,
    `amplification: ${a.deliveries} deliveries × ${a.perDelivery} per delivery × ${a.inner} inner = ${a.total} calls (budget ${a.budget})`,
    `idempotency: ${plan.idempotency.idempotent ? 'idempotent' : 'not idempotent'}${plan.idempotency.key ? `, keyed by ${plan.idempotency.key}` : ''}`,
  ];
}

/** 408, 429, 500, 501, … 599 → "408, 429, 500–599" */
export function compactStatuses(statuses: readonly number[]): string {
  const parts: string[] = [];
  let start = statuses[0];
  let previous = start;
  const flush = () => {
    if (start === undefined || previous === undefined) return;
    parts.push(start === previous ? String(start) : `${start}–${previous}`);
  };
  for (const status of statuses.slice(1)) {
    if (previous !== undefined && status === previous + 1) {
      previous = status;
      continue;
    }
    flush();
    start = status;
    previous = status;
  }
  flush();
  return parts.join(', ');
}

export interface ResourceRow {
  kind: string;
  name: string;
  detail: string;
}

function settings(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? JSON.stringify(value) : value}`)
    .join(' ');
}

export function resourceRows(plan: RetryPlan, target: TargetName): ResourceRow[] {
  const rows: ResourceRow[] = [];
  if (target === 'rabbitmq' && plan.targets.rabbitmq) {
    const r = plan.targets.rabbitmq;
    for (const exchange of r.exchanges)
      rows.push({
        kind: 'exchange',
        name: exchange.name,
        detail: `${exchange.role}, ${exchange.type}${exchange.declare ? ', on every node' : ', not declared (owned by the producer)'}`,
      });
    for (const queue of r.queues)
      rows.push({
        kind: 'queue',
        name: queue.name,
        detail: `${queue.role}${queue.delayMs === undefined ? '' : ` ${formatDuration(queue.delayMs)}`}, ${plural(queue.replication.replicas, 'replica')}, ${settings(queue.effective)}`,
      });
    for (const policy of r.policies)
      rows.push({
        kind: 'policy',
        name: policy.name,
        detail: `${policy.pattern} priority ${policy.priority}, on every node`,
      });
    for (const binding of r.bindings)
      rows.push({
        kind: 'binding',
        name: `${binding.source} → ${binding.destination}`,
        detail: `key ${JSON.stringify(binding.routingKey)}, on every node`,
      });
  }
  if (target === 'kafka' && plan.targets.kafka) {
    for (const topic of plan.targets.kafka.topics)
      rows.push({
        kind: 'topic',
        name: topic.name,
        detail: `${topic.role}${topic.delayMs === undefined ? '' : ` ${formatDuration(topic.delayMs)}`}, ${topic.partitions} partitions, ${plural(topic.replicationFactor, 'replica')}, ${settings(topic.config)}`,
      });
  }
  if (target === 'serviceBus' && plan.targets.serviceBus) {
    for (const entity of plan.targets.serviceBus.entities) {
      const props = entity.properties as unknown as Record<string, string | number>;
      rows.push({
        kind: entity.kind,
        name: entity.topic ? `${entity.topic}/${entity.name}` : entity.name,
        detail: `${entity.role}, replicated by Service Bus, ${settings(props)}`,
      });
    }
  }
  return rows;
}

/**
 * Where this target's dead letters are, one line each: the place to watch and to replay from.
 * Service Bus has two when copies go to a retry queue: each entity dead-letters into its own
 * subqueue.
 */
export function deadLetterLines(plan: RetryPlan, target: TargetName): string[] {
  const { rabbitmq, kafka, serviceBus } = plan.targets;
  if (target === 'rabbitmq' && rabbitmq)
    return [`queue ${rabbitmq.deadLetterQueue} (through exchange ${rabbitmq.deadLetterExchange})`];
  if (target === 'kafka' && kafka) return [`topic ${kafka.deadLetterTopic}`];
  if (target === 'serviceBus' && serviceBus) {
    const last = plan.maxAttempts;
    return serviceBus.deadLetterQueues.map(({ path, attempts }) => {
      const which =
        attempts.from === attempts.to
          ? `attempt ${attempts.from}`
          : `attempts ${attempts.from}–${attempts.to}`;
      const exhausted = attempts.to === last ? ', exhausted messages included' : '';
      return `${path} (failures on ${which}${exhausted})`;
    });
  }
  return [];
}

function nodes(count: number): string {
  return `${count} node${count === 1 ? '' : 's'}`;
}

function survives(replication: Replication): string {
  const writes = `writes go on with ${nodes(replication.writesWithDown)} down`;
  // Kafka acks 0: the producer waits for no acknowledgement, so nothing is ever confirmed.
  if (replication.confirmedOn === 0)
    return `no message is confirmed (the producer does not wait for the broker), so one can be lost with no node lost; ${writes}`;
  return `a confirmed message is on ${replication.confirmedOn} and survives ${nodes(replication.survivesDown)} lost; ${writes}`;
}

/** One line: how the target's messages are replicated and what that survives. */
export function replicationSummary(plan: RetryPlan, target: TargetName): string {
  const { rabbitmq, kafka, serviceBus } = plan.targets;
  if (target === 'rabbitmq' && rabbitmq) {
    const queue = rabbitmq.queues[0];
    if (!queue) return '';
    const cluster =
      rabbitmq.clusterSize === undefined ? '' : ` on a cluster of ${nodes(rabbitmq.clusterSize)}`;
    return `replication: ${plural(queue.replication.replicas, 'replica')} per quorum queue${cluster}: ${survives(queue.replication)}; exchanges, bindings and policies are on every node`;
  }
  if (target === 'kafka' && kafka) {
    const topic = kafka.topics[0];
    if (!topic) return '';
    const acks = kafka.producer.acks === -1 ? 'acks all, idempotent' : `acks ${kafka.producer.acks}`;
    const cluster = kafka.clusterSize === undefined ? '' : ` on ${kafka.clusterSize} brokers`;
    return `replication: factor ${topic.replicationFactor}, min.insync.replicas ${topic.config['min.insync.replicas']}, ${acks}${cluster}: ${survives(topic.replication)}`;
  }
  if (target === 'serviceBus' && serviceBus)
    return 'replication: by Service Bus itself, nothing to set (geo-replication is a namespace setting)';
  return '';
}

export function targetTitle(plan: RetryPlan, target: TargetName): string {
  const { rabbitmq, kafka, serviceBus } = plan.targets;
  if (target === 'rabbitmq' && rabbitmq)
    return `rabbitmq: ${rabbitmq.mode}, RabbitMQ ${rabbitmq.brokerVersion}+, vhost ${rabbitmq.vhost}`;
  if (target === 'kafka' && kafka)
    return `kafka: topic ${kafka.sourceTopic}, group ${kafka.consumerGroup}, ordering ${kafka.ordering}`;
  if (target === 'serviceBus' && serviceBus)
    return `serviceBus: ${serviceBus.entity.kind === 'queue' ? `queue ${serviceBus.entity.queue}` : `subscription ${serviceBus.entity.topic}/${serviceBus.entity.subscription}`}, retries scheduled on ${serviceBus.scheduleTo}`;
  return target;
}

export function sourceOf(plan: RetryPlan, target: TargetName): string {
  const { rabbitmq, kafka, serviceBus } = plan.targets;
  if (target === 'rabbitmq' && rabbitmq)
    return `${rabbitmq.exchanges[0]?.name ?? ''} → ${rabbitmq.mainQueue}`;
  if (target === 'kafka' && kafka) return kafka.sourceTopic;
  if (target === 'serviceBus' && serviceBus)
    return serviceBus.entity.kind === 'queue'
      ? serviceBus.entity.queue
      : `${serviceBus.entity.topic}/${serviceBus.entity.subscription}`;
  return '';
}

export function rulesOf(plan: RetryPlan, target: TargetName): DeliveryRules | undefined {
  return plan.targets[target];
}
