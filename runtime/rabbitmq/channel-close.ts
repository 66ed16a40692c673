import type { Channel } from 'amqplib';

const watchers = new WeakMap<Channel, Set<() => void>>();

/**
 * Calls `callback` once when the channel closes (the broker closed it, the connection dropped,
 * or the application closed it). One 'close' listener per channel however many consumers
 * watch it, so many consumers on one channel never trip Node's listener warning. Returns a
 * function that stops watching.
 */
export function onChannelClose(channel: Channel, callback: () => void): () => void {
  let set = watchers.get(channel);
  if (!set) {
    const fresh = new Set<() => void>();
    set = fresh;
    watchers.set(channel, fresh);
    channel.once('close', () => {
      for (const each of [...fresh]) each();
      fresh.clear();
    });
  }
  set.add(callback);
  const watching = set;
  return () => {
    watching.delete(callback);
  };
}
