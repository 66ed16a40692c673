import type { RetryPlan } from '../../policy';
import { formatDuration } from '../../policy';
import type { TargetName } from '../../policy/plan/targets';

/**
 * The path a message takes on one target, as boxes and arrows: source → main queue or topic →
 * wait levels → dead letter. Mermaid and SVG draw the same model, so they never disagree.
 * Columns place the boxes left to right; rows stack the wait levels.
 */

export type NodeKind = 'source' | 'main' | 'wait' | 'dead-letter';

export interface TopologyNode {
  id: string;
  kind: NodeKind;
  /** What it is: "exchange", "queue", "topic", "subscription", "scheduled redelivery". */
  type: string;
  name: string;
  /** A short second line: the delay it holds a message for, or its role. */
  note: string;
  column: number;
  row: number;
}

export interface TopologyEdge {
  from: string;
  to: string;
  label: string;
  /** `back`: a message returning upstream (drawn curved so it does not hide the way out). */
  kind: 'flow' | 'retry' | 'back' | 'dead-letter';
}

export interface Topology {
  nodes: TopologyNode[];
  edges: TopologyEdge[];
}

const waits = (delays: readonly number[]) => delays.map(formatDuration).join(', ');

function rabbitmq(plan: RetryPlan): Topology {
  const r = plan.targets.rabbitmq;
  if (!r) return { nodes: [], edges: [] };
  const source = r.exchanges.find((exchange) => exchange.role === 'source');
  const routingKey = r.bindings.find((binding) => binding.destination === r.mainQueue)?.routingKey ?? '';
  const nodes: TopologyNode[] = [
    {
      id: 'source',
      kind: 'source',
      type: 'exchange',
      name: source?.name ?? '',
      note: source?.type ?? '',
      column: 0,
      row: 0,
    },
    { id: 'main', kind: 'main', type: 'queue', name: r.mainQueue, note: 'quorum, main', column: 1, row: 0 },
    {
      id: 'dlq',
      kind: 'dead-letter',
      type: 'queue',
      name: r.deadLetterQueue,
      note: `dead letter via ${r.deadLetterExchange}`,
      column: 2,
      row: 0,
    },
  ];
  const edges: TopologyEdge[] = [{ from: 'source', to: 'main', label: `key ${routingKey}`, kind: 'flow' }];
  if (r.mode === 'ttl-queues') {
    for (const level of r.levels) {
      const id = `wait-${level.level}`;
      nodes.push({
        id,
        kind: 'wait',
        type: 'wait queue',
        name: level.destination,
        note: `TTL ${formatDuration(level.delayMs)}, then back to the main queue`,
        column: 2,
        row: level.level - 1,
      });
      edges.push({ from: 'main', to: id, label: `attempt ${level.level} fails`, kind: 'retry' });
      // The box says where an expired message goes; a label on every return arrow is clutter.
      edges.push({ from: id, to: 'main', label: '', kind: 'back' });
    }
  } else if (r.levels.length > 0) {
    const how = r.mode === 'quorum-delayed-retry' ? 'broker delayed retry' : 'x-opt-delivery-time';
    nodes.push({
      id: 'delay',
      kind: 'wait',
      type: how,
      name: r.mainQueue,
      note: `waits ${waits(r.levels.map((level) => level.waitMs.max))}`,
      column: 2,
      row: 0,
    });
    edges.push({ from: 'main', to: 'delay', label: 'attempt fails', kind: 'retry' });
    edges.push({ from: 'delay', to: 'main', label: 'redelivered', kind: 'back' });
  }
  edges.push({ from: 'main', to: 'dlq', label: 'permanent or exhausted', kind: 'dead-letter' });
  return { nodes, edges };
}

function kafka(plan: RetryPlan): Topology {
  const k = plan.targets.kafka;
  if (!k) return { nodes: [], edges: [] };
  const nodes: TopologyNode[] = [
    { id: 'source', kind: 'source', type: 'producer', name: 'producers', note: '', column: 0, row: 0 },
    {
      id: 'main',
      kind: 'main',
      type: 'topic',
      name: k.sourceTopic,
      note: `group ${k.consumerGroup}`,
      column: 1,
      row: 0,
    },
    {
      id: 'dlt',
      kind: 'dead-letter',
      type: 'topic',
      name: k.deadLetterTopic,
      note: 'dead letter',
      column: 2,
      row: 0,
    },
  ];
  const edges: TopologyEdge[] = [{ from: 'source', to: 'main', label: 'produce', kind: 'flow' }];
  let previous = 'main';
  for (const level of k.levels) {
    const id = `retry-${level.level}`;
    nodes.push({
      id,
      kind: 'wait',
      type: 'retry topic',
      name: level.destination,
      note: `not before +${formatDuration(level.delayMs)}`,
      column: 2,
      row: level.level - 1,
    });
    edges.push({ from: previous, to: id, label: `attempt ${level.level} fails`, kind: 'retry' });
    previous = id;
  }
  edges.push({ from: 'main', to: 'dlt', label: 'permanent', kind: 'dead-letter' });
  if (previous !== 'main') edges.push({ from: previous, to: 'dlt', label: 'exhausted', kind: 'dead-letter' });
  return { nodes, edges };
}

function serviceBus(plan: RetryPlan): Topology {
  const s = plan.targets.serviceBus;
  if (!s) return { nodes: [], edges: [] };
  const entity = s.entity;
  const main = entity.kind === 'queue' ? entity.queue : `${entity.topic}/${entity.subscription}`;
  const nodes: TopologyNode[] = [
    {
      id: 'source',
      kind: 'source',
      type: entity.kind === 'queue' ? 'sender' : 'topic',
      name: entity.kind === 'queue' ? 'senders' : entity.topic,
      note: '',
      column: 0,
      row: 0,
    },
    {
      id: 'main',
      kind: 'main',
      type: entity.kind,
      name: main,
      note: `max delivery ${s.entities[0]?.properties.maxDeliveryCount ?? ''}`,
      column: 1,
      row: 0,
    },
  ];
  // Each entity dead-letters into its own subqueue: with a retry queue, the first attempt's
  // failures go to the main entity's, every later one's (exhausted included) to the retry queue's.
  const places = s.deadLetterQueues;
  const dlqId = (index: number) => (places.length === 1 ? 'dlq' : `dlq-${index + 1}`);
  places.forEach((place, index) => {
    const attempts =
      place.attempts.from === place.attempts.to
        ? `attempt ${place.attempts.from}`
        : `attempts ${place.attempts.from}–${place.attempts.to}`;
    nodes.push({
      id: dlqId(index),
      kind: 'dead-letter',
      type: 'dead-letter queue',
      name: place.path,
      note: `failures on ${attempts}`,
      column: places.length === 1 ? 2 : index + 1,
      row: 0,
    });
  });
  const firstDlq = dlqId(0);
  const lastDlq = dlqId(places.length - 1);
  const edges: TopologyEdge[] = [
    { from: 'source', to: 'main', label: entity.kind === 'queue' ? 'send' : 'subscribe', kind: 'flow' },
  ];
  if (s.levels.length > 0) {
    const onItself = s.scheduleTo === main;
    nodes.push({
      id: 'retry',
      kind: 'wait',
      type: onItself ? 'scheduled copy' : 'retry queue',
      name: s.scheduleTo,
      note: `scheduled +${waits(s.levels.map((level) => level.delayMs))}`,
      column: 2,
      row: 0,
    });
    edges.push({ from: 'main', to: 'retry', label: 'attempt fails', kind: 'retry' });
    edges.push({
      from: 'retry',
      to: lastDlq,
      label: onItself ? 'exhausted' : 'exhausted or permanent',
      kind: 'dead-letter',
    });
  }
  edges.push({ from: 'main', to: firstDlq, label: 'permanent', kind: 'dead-letter' });
  return { nodes, edges };
}

function byTarget(plan: RetryPlan, target: TargetName): Topology {
  switch (target) {
    case 'rabbitmq':
      return rabbitmq(plan);
    case 'kafka':
      return kafka(plan);
    case 'serviceBus':
      return serviceBus(plan);
  }
}

/**
 * The dead letter goes under the wait levels, in their column: every arrow into it then comes
 * from above or the left and crosses no box.
 */
export function topologyOf(plan: RetryPlan, target: TargetName): Topology {
  const topology = byTarget(plan, target);
  const waitRows = topology.nodes.filter((node) => node.kind === 'wait').map((node) => node.row + 1);
  const below = Math.max(0, ...waitRows);
  // Several dead letters (Service Bus with a retry queue) keep their own columns, side by side.
  const single = topology.nodes.filter((node) => node.kind === 'dead-letter').length === 1;
  return {
    ...topology,
    nodes: topology.nodes.map((node) =>
      node.kind === 'dead-letter' ? { ...node, column: single ? 2 : node.column, row: below } : node,
    ),
  };
}
