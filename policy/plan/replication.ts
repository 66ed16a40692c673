import type { KafkaAcks } from '../types';
import type { Replication } from './types';

/**
 * What a replica count means for messages, in the numbers a reviewer asks about: on how many
 * nodes a confirmed message is, how many nodes may fail without losing it, and how many may be
 * down while new messages are still confirmed.
 */

/** The argument that sets a quorum queue's members when it is first declared (RabbitMQ 3.8+). */
export const QUORUM_REPLICAS_ARGUMENT = 'x-quorum-initial-group-size';

/**
 * A quorum queue confirms a message once a majority of its members has it (Raft), and accepts
 * messages while a majority is up. So 4 members tolerate no more than 3 do.
 */
export function quorumReplication(replicas: number): Replication {
  const majority = Math.floor(replicas / 2) + 1;
  return {
    replicas,
    confirmedOn: majority,
    survivesDown: majority - 1,
    writesWithDown: replicas - majority,
  };
}

/**
 * A Kafka write with acks all is acknowledged once every in-sync replica has it, and refused when
 * fewer than min.insync.replicas are in sync. With acks 1 only the leader has it when it is
 * acknowledged: if the leader fails before a follower copies it, the record is gone (unclean
 * leader election stays off, the default since Kafka 0.11). With acks 0 the producer waits for
 * no acknowledgement: a record is confirmed on no replica (confirmedOn 0).
 */
export function kafkaReplication(replicationFactor: number, minInSync: number, acks: KafkaAcks): Replication {
  if (acks !== -1) {
    return {
      replicas: replicationFactor,
      confirmedOn: acks,
      survivesDown: 0,
      writesWithDown: replicationFactor - 1,
    };
  }
  const confirmedOn = Math.min(minInSync, replicationFactor);
  return {
    replicas: replicationFactor,
    confirmedOn,
    survivesDown: confirmedOn - 1,
    writesWithDown: Math.max(0, replicationFactor - minInSync),
  };
}
