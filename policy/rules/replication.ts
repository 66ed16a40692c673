import type { IssueCode } from '../codes';
import { type Issue, type IssuePath, issue } from '../issues';
import type { Policy } from '../types';
import type { Rule } from './context';

/**
 * Replication: how many copies of a waiting message survive a node failure. Every target states
 * it (Kafka: replication factor, min.insync.replicas and acks; RabbitMQ: quorum queue members;
 * Service Bus replicates by itself and has nothing to set). A policy marked
 * `metadata.environment: production` gets errors where another gets warnings.
 */

const T = ['spec', 'targets'] as const;

/** Warning codes that are errors on a policy marked for production. */
export const PRODUCTION_ERRORS: ReadonlySet<IssueCode> = new Set([
  'min-insync-equals-replication',
  'acks-below-all',
]);

function found(policy: Policy, code: IssueCode, path: IssuePath, message: string): Issue {
  const base = issue(code, path, message);
  return policy.environment === 'production' && PRODUCTION_ERRORS.has(code)
    ? { ...base, severity: 'error', message: `${message} (an error on a policy marked for production)` }
    : base;
}

const rabbitmq: Rule = ({ policy }) => {
  const target = policy.targets.rabbitmq;
  if (!target) return [];
  const at = (key: string): IssuePath => [...T, 'rabbitmq', key];
  const out: Issue[] = [];
  const { quorumReplicas: replicas, clusterSize } = target;
  if (clusterSize !== undefined && replicas > clusterSize) {
    out.push(
      issue(
        'replicas-above-cluster',
        at('quorumReplicas'),
        `expected at most ${clusterSize} quorum queue replicas (clusterSize), got ${replicas}: RabbitMQ silently declares the queue on the ${clusterSize} nodes it has`,
      ),
    );
  }
  if (replicas % 2 === 0) {
    out.push(
      issue(
        'quorum-replicas-even',
        at('quorumReplicas'),
        `${replicas} quorum queue replicas need a majority of ${replicas / 2 + 1}, so they tolerate no more failed nodes than ${replicas - 1} do; use an odd number`,
      ),
    );
  }
  if (policy.environment === 'production' && (replicas === 1 || clusterSize === 1)) {
    out.push(
      issue(
        'no-replication',
        at(replicas === 1 ? 'quorumReplicas' : 'clusterSize'),
        'every message waits on one node only: when that node is lost, its messages are lost; use 3 replicas on a cluster of at least 3 nodes',
      ),
    );
  }
  return out;
};

const kafka: Rule = ({ policy }) => {
  const target = policy.targets.kafka;
  if (!target) return [];
  const at = (key: string): IssuePath => [...T, 'kafka', key];
  const out: Issue[] = [];
  const { replicationFactor: factor, minInSyncReplicas: minInSync, clusterSize } = target;
  if (clusterSize !== undefined && factor > clusterSize) {
    out.push(
      issue(
        'replicas-above-cluster',
        at('replicationFactor'),
        `expected a replication factor of at most ${clusterSize} (clusterSize), got ${factor}: Kafka refuses to create the topics`,
      ),
    );
  }
  if (policy.environment === 'production' && (factor === 1 || clusterSize === 1)) {
    out.push(
      issue(
        'no-replication',
        at(factor === 1 ? 'replicationFactor' : 'clusterSize'),
        'every retry record is on one broker only: when that broker is lost, the records waiting on it are lost; use replicationFactor 3 and minInSyncReplicas 2',
      ),
    );
  }
  if (factor > 1 && minInSync === factor) {
    out.push(
      found(
        policy,
        'min-insync-equals-replication',
        at('minInSyncReplicas'),
        `min.insync.replicas ${minInSync} equals the replication factor: with any one broker down every retry and dead-letter copy is refused, and the consumer stops; use ${factor - 1}`,
      ),
    );
  }
  if (target.acks !== -1) {
    out.push(
      found(
        policy,
        'acks-below-all',
        at('acks'),
        target.acks === 0
          ? 'acks 0: the producer does not wait for any acknowledgement, so a retry copy the broker never wrote (a dropped connection, a leader change) is lost without an error, and its original is already committed; use "all"'
          : `acks ${target.acks}: a retry copy acknowledged by the leader alone is lost if the leader fails before a follower has it, and its original is already committed; use "all"`,
      ),
    );
  }
  return out;
};

export const replicationRules: Rule[] = [rabbitmq, kafka];
