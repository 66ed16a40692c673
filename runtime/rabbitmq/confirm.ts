import { randomBytes } from 'node:crypto';
import type { ConfirmChannel, Message, Options } from 'amqplib';
import { RetryTopologyError } from '../errors';

/**
 * A publish that resolves only when the broker has taken the message into a queue. Publisher
 * confirms alone are not enough: an unroutable message is confirmed too, after the broker hands
 * it back with basic.return (mandatory). So each publish carries an id, returns are collected
 * per channel, and a confirm for a returned id counts as a refusal.
 */

export const PUBLISH_ID_HEADER = 'retry-publish-id';

const returned = new WeakMap<ConfirmChannel, Set<string>>();

/** Unique per process and publish, and cheaper than a UUID on the hot path. */
const PROCESS_ID = randomBytes(6).toString('hex');
let sequence = 0;

const closed = new WeakSet<ConfirmChannel>();

/**
 * Marks the channel closed as soon as it closes. amqplib fails the unconfirmed publishes from a
 * 'close' listener of its own, so this one goes in front of it.
 */
function trackClose(channel: ConfirmChannel): void {
  const mark = () => closed.add(channel);
  if (typeof channel.prependOnceListener === 'function') channel.prependOnceListener('close', mark);
  else channel.once('close', mark);
}

function returnsOf(channel: ConfirmChannel): Set<string> {
  let ids = returned.get(channel);
  if (!ids) {
    const fresh = new Set<string>();
    ids = fresh;
    returned.set(channel, fresh);
    trackClose(channel);
    // AMQP sends basic.return before the basic.ack of the same message, on the same channel.
    channel.on('return', (message: Message) => {
      const id = message.properties.headers?.[PUBLISH_ID_HEADER];
      if (typeof id === 'string') fresh.add(id);
    });
  }
  return ids;
}

export function publishConfirmed(
  channel: ConfirmChannel,
  exchange: string,
  routingKey: string,
  content: Buffer,
  options: Options.Publish,
): Promise<void> {
  return publishCopy(channel, exchange, routingKey, content, { ...options, headers: { ...options.headers } });
}

/**
 * publishConfirmed for properties the caller made for this one publish: it adds its id to their
 * headers and sets `mandatory` in place instead of copying them (the runtime's hot path).
 */
export function publishCopy(
  channel: ConfirmChannel,
  exchange: string,
  routingKey: string,
  content: Buffer,
  options: Options.Publish & { headers: Record<string, unknown> },
): Promise<void> {
  const ids = returnsOf(channel);
  const id = `${PROCESS_ID}-${(sequence++).toString(36)}`;
  options.headers[PUBLISH_ID_HEADER] = id;
  options.mandatory = true;
  return new Promise((resolve, reject) => {
    try {
      channel.publish(exchange, routingKey, content, options, (error) => {
        const wasReturned = ids.delete(id);
        if (error && closed.has(channel))
          // Not a refusal: the copy may be in the queue or not, and this channel cannot take it
          // again. The original is still unacked, so the broker gives it to a consumer again.
          reject(
            new RetryTopologyError(
              'publish-failed',
              `the channel closed before the broker confirmed the publish to ${exchange || '(default)'} / ${routingKey}`,
              { cause: error },
            ),
          );
        else if (error)
          reject(
            refusal(`the broker refused the publish to ${exchange || '(default)'} / ${routingKey}`, error),
          );
        else if (wasReturned)
          reject(refusal(`no queue is bound to ${exchange || '(default)'} / ${routingKey}`));
        else resolve();
      });
    } catch (error) {
      // A closed channel throws synchronously.
      reject(
        new RetryTopologyError('publish-failed', `publish to ${exchange} / ${routingKey} failed`, {
          cause: error,
        }),
      );
    }
  });
}

function refusal(message: string, cause?: unknown): RetryTopologyError {
  return new RetryTopologyError('publish-refused', message, cause === undefined ? undefined : { cause });
}
