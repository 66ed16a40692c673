import type {
  ConsumedMessage,
  ConsumerLike,
  EachMessagePayloadLike,
  OutgoingMessage,
  ProducerLike,
} from '../../../runtime/kafka/contract';

/** A consumer that records what the runtime asks of it; the test delivers records by hand. */
export class FakeConsumer implements ConsumerLike {
  readonly log: string[] = [];
  failCommits = 0;
  private eachMessage?: (payload: EachMessagePayloadLike) => Promise<void>;

  async connect() {}
  async disconnect() {}
  async subscribe(subscription: { topics: string[] }) {
    this.log.push(`subscribe ${subscription.topics.join(',')}`);
  }
  async run(config: { eachMessage: (payload: EachMessagePayloadLike) => Promise<void> }) {
    this.eachMessage = config.eachMessage;
  }
  async commitOffsets(
    offsets: Array<{ topic: string; partition: number; offset: string; metadata?: string | null }>,
  ) {
    if (this.failCommits-- > 0) throw new Error('REBALANCE_IN_PROGRESS (simulated)');
    for (const o of offsets) this.log.push(`commit ${o.topic}[${o.partition}]@${o.offset}`);
  }
  seek(p: { topic: string; partition: number; offset: string }) {
    this.log.push(`seek ${p.topic}[${p.partition}]@${p.offset}`);
  }
  pause(topics: Array<{ topic: string; partitions?: number[] }>) {
    for (const t of topics) this.log.push(`pause ${t.topic}[${t.partitions?.join(',')}]`);
  }
  resume(topics: Array<{ topic: string; partitions?: number[] }>) {
    for (const t of topics) this.log.push(`resume ${t.topic}[${t.partitions?.join(',')}]`);
  }

  deliver(topic: string, partition: number, message: Partial<ConsumedMessage> & { offset: string }) {
    if (!this.eachMessage) throw new Error('run was not called');
    return this.eachMessage({
      topic,
      partition,
      message: { key: Buffer.from('k'), value: Buffer.from('v'), timestamp: '0', headers: {}, ...message },
    });
  }
}

export class FakeProducer implements ProducerLike {
  readonly sent: Array<{ topic: string; message: OutgoingMessage; acks?: number }> = [];
  failSends = 0;
  constructor(private readonly log: string[]) {}
  async send(record: { topic: string; messages: OutgoingMessage[]; acks?: number }) {
    if (this.failSends-- > 0) throw new Error('NOT_ENOUGH_REPLICAS (simulated)');
    for (const message of record.messages) {
      this.sent.push({
        topic: record.topic,
        message,
        ...(record.acks === undefined ? {} : { acks: record.acks }),
      });
      this.log.push(`send ${record.topic}[${message.partition}]`);
    }
    return [];
  }
}
