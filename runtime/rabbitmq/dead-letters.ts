import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { RabbitMqPlan, RetryPlan } from '../../policy/plan/types';
import type { Clock, Random } from '../clock';
import type { Claim, DeadLetterBroker } from '../dead-letters/broker';
import { DeadLetterError } from '../dead-letters/errors';
import { keepAttemptsUnsupported, requireDeadLetters } from '../dead-letters/locations';
import { replayedHeaders } from '../dead-letters/metadata';
import { type DeadLetters, deadLetterCommands } from '../dead-letters/tool';
import { publishConfirmed } from './confirm';
import { copyProperties } from './copy';
import { readRabbitDeadLetter } from './dead-letter-read';
import { QueueReader } from './dead-letter-reader';

export interface RabbitDeadLetterOptions {
  /** A connected amqplib connection (a ChannelModel); each command opens and closes its own channel. */
  connection: { createConfirmChannel(): Promise<ConfirmChannel> };
  clock?: Clock;
  random?: Random;
}

/** Confirms a replay may wait for at once: publishes on one channel keep their order anyway. */
const MAX_IN_FLIGHT = 32;
/** Unacked messages per reading consumer; another joins when the held ones fill the windows. */
const PREFETCH = 1_000;
/** With nothing delivered for this long and nothing ready, a read is over. */
const QUIET_MS = 1_000;
/** How long giving messages back may wait for the queue to show them again. */
const RETURNS_WAIT_MS = 5_000;

/**
 * The dead-letter queue of a plan's RabbitMQ target.
 *
 * RabbitMQ cannot browse a queue, so reading is taking without acking (dead-letter-reader.ts)
 * and giving everything back with one basic.nack(requeue) at the end; on 3.10.8 each pass raises
 * the messages' x-delivery-count by one (the dead-letter queue sets no delivery limit, so nothing
 * comes of it). A replayed copy goes to the main queue through the default exchange, confirmed
 * and mandatory, and only then is the dead letter acked: a crash in between leaves both (a
 * duplicate), never neither. Messages the command does not act on are held unacked until it
 * ends, then given back; if the process dies the broker gives them back itself.
 */
export function rabbitMqDeadLetters(plan: RetryPlan, options: RabbitDeadLetterOptions): DeadLetters {
  requireDeadLetters(plan, 'rabbitmq');
  const rabbit = plan.targets.rabbitmq as RabbitMqPlan;
  const queue = rabbit.deadLetterQueue;
  const mainQueue = rabbit.mainQueue;
  const keepAttemptsRefused = keepAttemptsUnsupported(plan, 'rabbitmq');

  async function openChannel(): Promise<ConfirmChannel> {
    const channel = await options.connection.createConfirmChannel();
    // Failures reach the calls as rejections; an unheard 'error' event would end the process.
    channel.on('error', () => {});
    return channel;
  }

  /** Gives back every message the channel still holds, then closes it. */
  async function giveBack(channel: ConfirmChannel, reader: QueueReader): Promise<void> {
    try {
      // basic.nack, not a channel close: on 4.3 a close counts as a failed delivery, a nack does not.
      await reader.giveBack(RETURNS_WAIT_MS);
      await channel.close();
    } catch {
      // The channel is gone: the broker has requeued whatever it held.
    }
  }

  const broker: DeadLetterBroker = {
    locations: [queue],
    replayTo: mainQueue,
    maxInFlight: MAX_IN_FLIGHT,
    ...(keepAttemptsRefused ? { keepAttemptsUnsupported: keepAttemptsRefused } : {}),
    async *browse() {
      const channel = await openChannel();
      const reader = new QueueReader(channel, queue, PREFETCH, QUIET_MS);
      try {
        await reader.start();
        for (let message = await reader.next(); message; message = await reader.next()) {
          yield readRabbitDeadLetter(message, queue);
        }
      } finally {
        await giveBack(channel, reader);
      }
    },
    async claim() {
      const channel = await openChannel();
      const reader = new QueueReader(channel, queue, PREFETCH, QUIET_MS);
      await reader.start();
      const held = new WeakMap<object, ConsumeMessage>();
      const take = (letter: object) => {
        const message = held.get(letter);
        if (!message)
          throw new DeadLetterError('invalid-option', 'that dead letter was not taken by this claim');
        held.delete(letter);
        return message;
      };
      const claim: Claim = {
        async next() {
          const message = await reader.next();
          if (!message) return undefined;
          const letter = readRabbitDeadLetter(message, queue);
          held.set(letter, message);
          return letter;
        },
        async replay(letter, copy) {
          const message = take(letter);
          const headers = replayedHeaders(letter.headers, { ...copy, replays: letter.replays });
          const properties = copyProperties(
            { ...message, properties: { ...message.properties, headers } },
            {},
          );
          await publishConfirmed(channel, '', mainQueue, message.content, properties);
          channel.ack(message);
          reader.settledOne();
          return 'done';
        },
        async remove(letter) {
          channel.ack(take(letter));
          reader.settledOne();
          return 'done';
        },
        close: () => giveBack(channel, reader),
      };
      return claim;
    },
  };
  return deadLetterCommands(broker, options);
}
