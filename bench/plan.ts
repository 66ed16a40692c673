import { derivePlan, parsePolicy, type RetryPlan } from '../policy';
import type { KafkaTargetInput, PolicyInput, RabbitTargetInput } from '../policy/input';

/**
 * The policy the benchmarks run: one wait per delay (attempts = delays + 1), no jitter, an
 * HTTP 503 transient, on the targets asked for. A target gets names from the policy's and the
 * settings of a single local broker unless `rabbitmq` or `kafka` says otherwise.
 */
export function benchPlan(
  name: string,
  delays: string[],
  targets: { rabbitmq?: Partial<RabbitTargetInput>; kafka?: Partial<KafkaTargetInput> },
  spec: Pick<PolicyInput['spec'], 'deadline' | 'ordering'> = {},
): RetryPlan {
  return derivePlan(
    parsePolicy({
      apiVersion: 'retry-topology/v1',
      kind: 'RetryPolicy',
      metadata: { name },
      spec: {
        consumer: 'bench',
        maxAttempts: delays.length + 1,
        backoff: { type: 'list', delays },
        jitter: 'none',
        classify: { presets: ['http-transient'] },
        idempotency: { idempotent: true },
        ...spec,
        targets: {
          ...(targets.rabbitmq && {
            rabbitmq: {
              exchange: `${name}.in`,
              declareExchange: true,
              routingKey: 'k',
              brokerVersion: '3.10.8',
              ...targets.rabbitmq,
            },
          }),
          ...(targets.kafka && {
            kafka: {
              topic: `${name}.in`,
              consumerGroup: `${name}.g`,
              partitions: 3,
              declareTopic: true,
              replicationFactor: 1,
              minInSyncReplicas: 1,
              ...targets.kafka,
            },
          }),
        },
      },
    }),
  );
}
