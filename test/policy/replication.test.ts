import { describe, expect, it } from 'vitest';
import { checkDocument, derivePlan, type Issue, type PolicyInput, parsePolicy } from '../../policy';
import { kafkaReplication, quorumReplication } from '../../policy/plan/replication';
import { withChanges } from './fixtures';

const T = ['spec', 'targets'] as const;
const PRODUCTION: [ReadonlyArray<string>, unknown] = [['metadata', 'environment'], 'production'];

function findings(document: unknown, code: string): Issue[] {
  return checkDocument(document).issues.filter((found) => found.code === code);
}

describe('what a replica count means', () => {
  it('a quorum queue confirms on a majority and writes while a majority is up', () => {
    expect([1, 2, 3, 4, 5].map(quorumReplication)).toEqual([
      { replicas: 1, confirmedOn: 1, survivesDown: 0, writesWithDown: 0 },
      { replicas: 2, confirmedOn: 2, survivesDown: 1, writesWithDown: 0 },
      { replicas: 3, confirmedOn: 2, survivesDown: 1, writesWithDown: 1 },
      { replicas: 4, confirmedOn: 3, survivesDown: 2, writesWithDown: 1 },
      { replicas: 5, confirmedOn: 3, survivesDown: 2, writesWithDown: 2 },
    ]);
  });

  it('a Kafka topic confirms on min.insync.replicas with acks all, on the leader alone with acks 1', () => {
    expect(kafkaReplication(3, 2, -1)).toEqual({
      replicas: 3,
      confirmedOn: 2,
      survivesDown: 1,
      writesWithDown: 1,
    });
    expect(kafkaReplication(3, 3, -1)).toEqual({
      replicas: 3,
      confirmedOn: 3,
      survivesDown: 2,
      writesWithDown: 0,
    });
    expect(kafkaReplication(3, 2, 1)).toEqual({
      replicas: 3,
      confirmedOn: 1,
      survivesDown: 0,
      writesWithDown: 2,
    });
    expect(kafkaReplication(1, 1, -1)).toEqual({
      replicas: 1,
      confirmedOn: 1,
      survivesDown: 0,
      writesWithDown: 0,
    });
  });
});

describe('the plan states the replication of every resource', () => {
  const plan = derivePlan(
    parsePolicy(
      withChanges([
        [[...T, 'rabbitmq', 'mode'], 'ttl-queues'],
        [[...T, 'rabbitmq', 'brokerVersion'], '3.10.8'],
        [[...T, 'rabbitmq', 'quorumReplicas'], 5],
        [[...T, 'rabbitmq', 'clusterSize'], 5],
        [['spec', 'jitter'], 'none'],
      ]) as PolicyInput,
    ),
  );

  it('RabbitMQ: each queue is declared with its replica count, and says what it survives', () => {
    const queues = plan.targets.rabbitmq?.queues ?? [];
    expect(queues.map((queue) => queue.role)).toEqual(['main', 'wait', 'wait', 'wait', 'dead-letter']);
    for (const queue of queues) {
      expect(queue.arguments['x-quorum-initial-group-size']).toBe(5);
      expect(queue.effective['x-quorum-initial-group-size']).toBe(5);
      expect(queue.replication).toEqual(quorumReplication(5));
    }
    expect(plan.targets.rabbitmq?.clusterSize).toBe(5);
  });

  it('Kafka: each topic has the factor, min.insync.replicas and what acks all gives', () => {
    const kafka = plan.targets.kafka;
    expect(kafka?.producer).toEqual({ acks: -1, idempotent: true });
    expect(kafka?.topics.length).toBeGreaterThan(1);
    for (const topic of kafka?.topics ?? []) {
      expect(topic.replicationFactor).toBe(3);
      expect(topic.config['min.insync.replicas']).toBe('2');
      expect(topic.replication).toEqual(kafkaReplication(3, 2, -1));
    }
  });

  it('Service Bus: nothing to set, and the plan says so', () => {
    expect(plan.targets.serviceBus?.replication).toBe('managed-by-service');
  });

  it('acks 1 reaches the plan as the producer setting, without idempotence', () => {
    const low = derivePlan(parsePolicy(withChanges([[[...T, 'kafka', 'acks'], 1]]) as PolicyInput));
    expect(low.targets.kafka?.producer).toEqual({ acks: 1, idempotent: false });
    expect(low.targets.kafka?.topics[0]?.replication.survivesDown).toBe(0);
  });

  it('a changed replica count changes only the declared count and the replication, no name', () => {
    const base = withChanges([[[...T, 'rabbitmq', 'quorumReplicas'], 3]]) as PolicyInput;
    const more = withChanges([[[...T, 'rabbitmq', 'quorumReplicas'], 5]]) as PolicyInput;
    const [a, b] = [base, more].map((input) => derivePlan(parsePolicy(input)).targets.rabbitmq);
    const strip = (rabbit: typeof a) =>
      JSON.stringify({
        ...rabbit,
        queues: rabbit?.queues.map(({ arguments: _a, effective: _e, replication: _r, ...rest }) => rest),
      });
    expect(strip(a)).toBe(strip(b));
    expect(a?.queues[0]?.arguments['x-quorum-initial-group-size']).toBe(3);
    expect(b?.queues[0]?.arguments['x-quorum-initial-group-size']).toBe(5);
  });
});

describe('replication rules', () => {
  it('no-replication fires only on a policy marked for production', () => {
    const single = withChanges([[[...T, 'kafka', 'replicationFactor'], 1]]);
    expect(findings(single, 'no-replication')).toEqual([]);
    const production = withChanges([PRODUCTION, [[...T, 'kafka', 'replicationFactor'], 1]]);
    expect(findings(production, 'no-replication')).toMatchObject([
      { severity: 'error', path: [...T, 'kafka', 'replicationFactor'] },
    ]);
  });

  it('no-replication: one quorum member, or a one-node cluster, in production', () => {
    const one = withChanges([PRODUCTION, [[...T, 'rabbitmq', 'quorumReplicas'], 1]]);
    expect(findings(one, 'no-replication').map((found) => found.path)).toEqual([
      [...T, 'rabbitmq', 'quorumReplicas'],
    ]);
    const oneNode = withChanges([
      PRODUCTION,
      [[...T, 'rabbitmq', 'quorumReplicas'], 1],
      [[...T, 'rabbitmq', 'clusterSize'], 1],
      [[...T, 'kafka', 'clusterSize'], 1],
      [[...T, 'kafka', 'replicationFactor'], 1],
    ]);
    expect(findings(oneNode, 'no-replication')).toHaveLength(2);
  });

  it('min.insync.replicas equal to the factor: a warning, an error in production', () => {
    const equal = withChanges([[[...T, 'kafka', 'minInSyncReplicas'], 3]]);
    expect(findings(equal, 'min-insync-equals-replication')).toMatchObject([{ severity: 'warning' }]);
    const production = withChanges([PRODUCTION, [[...T, 'kafka', 'minInSyncReplicas'], 3]]);
    expect(findings(production, 'min-insync-equals-replication')).toMatchObject([{ severity: 'error' }]);
    expect(() => parsePolicy(production as PolicyInput)).toThrow(/min-insync-equals-replication/);
    // One replica and min.insync 1 is a development setup, not this mistake.
    const single = withChanges([
      [[...T, 'kafka', 'replicationFactor'], 1],
      [[...T, 'kafka', 'minInSyncReplicas'], 1],
    ]);
    expect(findings(single, 'min-insync-equals-replication')).toEqual([]);
  });

  it('acks below all: a warning, an error in production; acks -1 is all', () => {
    for (const acks of [1, 0]) {
      expect(findings(withChanges([[[...T, 'kafka', 'acks'], acks]]), 'acks-below-all')).toMatchObject([
        { severity: 'warning' },
      ]);
      expect(
        findings(withChanges([PRODUCTION, [[...T, 'kafka', 'acks'], acks]]), 'acks-below-all'),
      ).toMatchObject([{ severity: 'error' }]);
    }
    expect(findings(withChanges([[[...T, 'kafka', 'acks'], -1]]), 'acks-below-all')).toEqual([]);
    expect(checkDocument(withChanges([[[...T, 'kafka', 'acks'], 2]])).issues[0]?.code).toBe('invalid-value');
  });

  it('acks 1 and acks 0 each say what they do: the leader alone acknowledges, or nothing does', () => {
    const [one] = findings(withChanges([[[...T, 'kafka', 'acks'], 1]]), 'acks-below-all');
    expect(one?.message).toMatch(/^acks 1: a retry copy acknowledged by the leader alone /);
    const [zero] = findings(withChanges([[[...T, 'kafka', 'acks'], 0]]), 'acks-below-all');
    expect(zero?.message).toMatch(/^acks 0: the producer does not wait for any acknowledgement/);
    expect(zero?.message).not.toMatch(/leader alone|acknowledged by/);
    expect(kafkaReplication(3, 2, 0)).toEqual({
      replicas: 3,
      confirmedOn: 0,
      survivesDown: 0,
      writesWithDown: 2,
    });
  });

  it('even quorum replica counts warn; odd ones do not', () => {
    const codes = (replicas: number) =>
      findings(withChanges([[[...T, 'rabbitmq', 'quorumReplicas'], replicas]]), 'quorum-replicas-even')
        .length;
    expect([1, 2, 3, 4, 5, 6].map(codes)).toEqual([0, 1, 0, 1, 0, 1]);
  });

  it('more replicas than the cluster has: RabbitMQ and Kafka', () => {
    const rabbit = withChanges([
      [[...T, 'rabbitmq', 'quorumReplicas'], 5],
      [[...T, 'rabbitmq', 'clusterSize'], 3],
    ]);
    expect(findings(rabbit, 'replicas-above-cluster')).toMatchObject([
      { severity: 'error', path: [...T, 'rabbitmq', 'quorumReplicas'] },
    ]);
    const kafka = withChanges([[[...T, 'kafka', 'clusterSize'], 2]]);
    expect(findings(kafka, 'replicas-above-cluster')).toMatchObject([
      { severity: 'error', path: [...T, 'kafka', 'replicationFactor'] },
    ]);
    const fits = withChanges([
      [[...T, 'rabbitmq', 'clusterSize'], 3],
      [[...T, 'kafka', 'clusterSize'], 3],
    ]);
    expect(findings(fits, 'replicas-above-cluster')).toEqual([]);
  });

  it('a production policy with the defaults on a three-node cluster is clean', () => {
    const document = withChanges([
      PRODUCTION,
      [[...T, 'rabbitmq', 'clusterSize'], 3],
      [[...T, 'kafka', 'clusterSize'], 3],
    ]);
    expect(checkDocument(document).issues).toEqual([]);
  });
});
