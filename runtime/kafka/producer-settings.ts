/**
 * How to make the producer the runtime copies records with, per client, so a copy survives a
 * partition leader change (a broker restart, a controlled shutdown, a rolling upgrade): every
 * copy acknowledged by all in-sync replicas, retried by the client on a leader change, and not
 * written twice by those retries. Pass them when creating the producer:
 * `kafka.producer(KAFKA_PRODUCER_SETTINGS.kafkajs)` or `.confluent` (docs/kafka.md, "Clients").
 *
 * The runtime cannot set these on a producer it is given: it asks for `acks: -1` on every send
 * (KafkaJS takes it per send; the Confluent client only per producer), and a send that fails
 * after the client's retries leaves the record uncommitted and read again after a back-off.
 */
export const KAFKA_PRODUCER_SETTINGS = {
  /**
   * kafkajs 2.2.4: `idempotent` makes the broker drop a retried batch it already wrote (the
   * retry after a lost acknowledgement); it requires acks -1, which every send asks for, and
   * one request in flight per connection (KafkaJS's own advice), so a retried batch cannot land
   * behind a later one for the same partition.
   * KafkaJS then retries without end by default; bounded here (about a minute: 300 ms doubling
   * to 30 s, 8 tries) so a long outage comes back to the runtime, which keeps the record and
   * tries again later, instead of blocking the partition's handler forever. KafkaJS logs a
   * warning that bounded retries may weaken exactly-once: a send given up is not committed, so
   * the runtime's at-least-once guarantee is unaffected.
   */
  kafkajs: {
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    retry: { retries: 8, initialRetryTime: 300, maxRetryTime: 30_000 },
  },
  /**
   * @confluentinc/kafka-javascript 1.10.1 (librdkafka 2.15.1): acks -1 and idempotence
   * (`enable.idempotence`), which also keeps the order of retried batches. librdkafka retries a
   * send until `delivery.timeout.ms` (300 s by default) through leader changes; then the send
   * fails and the runtime keeps the record.
   */
  confluent: {
    kafkaJS: { acks: -1, idempotent: true, allowAutoTopicCreation: false },
  },
} as const;
