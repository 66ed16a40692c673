import type { ChannelModel, ConfirmChannel } from 'amqplib';
import type { RetryPlan } from '../../policy/plan/types';
import { type Clock, mathRandom, systemClock } from '../clock';
import { RetryTopologyError } from '../errors';
import { consumeWithRetries, type RabbitConsumerOptions, type RabbitHandler } from './consumer';

/**
 * Consuming from a RabbitMQ cluster through a list of node URLs. When the node the consumer is
 * connected to dies (the connection closes), or the broker closes the channel or cancels the
 * consumer, it connects to the next node that answers and consumes again.
 *
 * Nothing is lost and nothing needs to be carried over: a message is acked only after its retry
 * or dead-letter copy is confirmed, so every message whose handling was cut short is still
 * unacked, and the broker gives it to a consumer again (measured on 3.10.8: the unacked messages
 * of a killed node's connection reached a consumer on another node within 0.2 s). Handling it
 * again publishes its copy again, so a copy whose confirm never came is republished: at worst a
 * duplicate, never a loss. A quorum queue's leader moving to another node is not a loss at all:
 * on 3.10.8, a consumer and a publisher connected to a surviving node went on through it with no
 * cancel, no closed channel and every confirm.
 */

/** One consuming session on one node. */
export interface FailoverSession {
  /** Resolves, with the reason, once this session can no longer consume. */
  lost: Promise<unknown>;
  /** Stops consuming and closes the connection; messages still unacked go back to the queue. */
  close(): Promise<void>;
}

export interface FailoverEvent {
  /** The URL consumed from before the loss (credentials removed). */
  from: string;
  /** The URL consumed from now (credentials removed). */
  to: string;
  reason: unknown;
  /** From the loss to consuming again. */
  downMs: number;
}

/** runFailover's options: the reconnect settings consumeWithFailover takes, and its clock and random. */
export interface FailoverOptions
  extends Pick<RabbitFailoverOptions, 'reconnectBackoff' | 'onFailover' | 'onConnectError'> {
  clock?: Clock;
  /** Picks the first URL, so consumers spread over the nodes. */
  random?: () => number;
}

export interface FailoverConsumer {
  /** The URL consumed from (credentials removed); "" while none answers. */
  readonly url: string;
  /** Stops consuming; in-flight messages finish or go back to the queue. */
  stop(): Promise<void>;
}

const DEFAULTS = {
  /** A node restart takes seconds to tens of seconds; polling faster only adds load on the others. */
  reconnectBackoff: { initialMs: 100, maxMs: 5_000 },
};

/** amqp://user:secret@host:5672/vhost → amqp://host:5672/vhost, for logs and events. */
export function withoutCredentials(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//');
}

/**
 * The failover loop, independent of the client: `open` starts a session on one URL. The first URL
 * is picked at random; after a loss the next one in the list is tried first, so a dead node is
 * tried last. Rounds in which no URL answers are separated by a doubling back-off.
 */
export async function runFailover(
  urls: readonly string[],
  open: (url: string) => Promise<FailoverSession>,
  options: FailoverOptions = {},
): Promise<FailoverConsumer> {
  if (urls.length === 0)
    throw new RetryTopologyError('no-target', 'consumeWithFailover needs at least one URL');
  const clock = options.clock ?? systemClock;
  const backoff = options.reconnectBackoff ?? DEFAULTS.reconnectBackoff;
  const stopping = new AbortController();
  let current: { session: FailoverSession; index: number } | undefined;
  let next = Math.floor((options.random ?? mathRandom)() * urls.length) % urls.length;

  /** A session on the first URL that answers, starting at `next`; undefined once stopped. */
  async function connect(): Promise<{ session: FailoverSession; index: number } | undefined> {
    let wait = backoff.initialMs;
    for (;;) {
      for (let tried = 0; tried < urls.length; tried++) {
        if (stopping.signal.aborted) return undefined;
        const index = (next + tried) % urls.length;
        const url = urls[index] as string;
        try {
          const session = await open(url);
          if (stopping.signal.aborted) {
            await session.close().catch(() => undefined);
            return undefined;
          }
          return { session, index };
        } catch (error) {
          options.onConnectError?.(error, withoutCredentials(url));
        }
      }
      try {
        await clock.sleep(wait, stopping.signal);
      } catch {
        return undefined;
      }
      wait = Math.min(wait * 2, backoff.maxMs);
    }
  }

  async function watch(active: { session: FailoverSession; index: number }): Promise<void> {
    const reason = await active.session.lost;
    if (stopping.signal.aborted || current !== active) return;
    const lostAt = clock.now();
    // Closing the lost session does not hold up the next one: its messages are back in the queue.
    void active.session.close().catch(() => undefined);
    current = undefined;
    next = (active.index + 1) % urls.length;
    const replacement = await connect();
    if (!replacement) return;
    current = replacement;
    options.onFailover?.({
      from: withoutCredentials(urls[active.index] as string),
      to: withoutCredentials(urls[replacement.index] as string),
      reason,
      downMs: clock.now() - lostAt,
    });
    void watch(replacement);
  }

  const first = await connect();
  if (!first) throw new RetryTopologyError('consumer-stopped', 'stopped before any URL answered');
  current = first;
  void watch(first);

  return {
    get url() {
      return current ? withoutCredentials(urls[current.index] as string) : '';
    },
    async stop() {
      stopping.abort(new RetryTopologyError('consumer-stopped', 'the consumer is stopping'));
      const active = current;
      current = undefined;
      await active?.session.close();
    },
  };
}

export interface RabbitFailoverOptions extends RabbitConsumerOptions {
  /** The wait after a round in which no URL answered: from initialMs, doubling up to maxMs. */
  reconnectBackoff?: { initialMs: number; maxMs: number };
  /** Told each time the consumer consumes again after a loss. */
  onFailover?: (event: FailoverEvent) => void;
  /** Told about each URL that did not answer. */
  onConnectError?: (error: unknown, url: string) => void;
  /**
   * Opens a connection to one URL. Default: amqplib's `connect`, with `connectTimeoutMs` on the
   * TCP connect and the AMQP handshake, and `heartbeatSeconds` unless the URL sets `heartbeat`.
   */
  connect?: (url: string) => Promise<ChannelModel>;
  /**
   * How long one URL may take to connect, open a channel and start consuming before the next
   * URL is tried (default 5,000). Without it a node that accepts the connection and never
   * answers (a frozen process, a half-open proxy) holds the loop for good.
   */
  connectTimeoutMs?: number;
  /**
   * The AMQP heartbeat asked for (default 5 s): a node that stops answering mid-session is lost
   * after about two of them, and its unacked messages go to a consumer on another node. RabbitMQ's
   * own default is 60 s.
   */
  heartbeatSeconds?: number;
}

const CONNECT_DEFAULTS = { connectTimeoutMs: 5_000, heartbeatSeconds: 5 };

/** The URL with `heartbeat` set, unless it sets one itself. */
export function withHeartbeat(url: string, seconds: number): string {
  if (/[?&]heartbeat=/.test(url)) return url;
  return `${url}${url.includes('?') ? '&' : '?'}heartbeat=${seconds}`;
}

/** Rejects with `connect-timeout` after `ms`; a session that opens later is closed at once. */
async function withinTimeout(
  url: string,
  ms: number,
  open: Promise<FailoverSession>,
): Promise<FailoverSession> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new RetryTopologyError(
          'connect-timeout',
          `${withoutCredentials(url)} did not connect and start consuming within ${ms} ms`,
        ),
      );
      void open.then(
        (session) => session.close(),
        () => undefined,
      );
    }, ms);
  });
  try {
    return await Promise.race([open, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** One session: a connection, a confirm channel and consumeWithRetries on it. */
async function openSession(
  url: string,
  plan: RetryPlan,
  handler: RabbitHandler,
  options: RabbitFailoverOptions,
): Promise<FailoverSession> {
  const timeoutMs = options.connectTimeoutMs ?? CONNECT_DEFAULTS.connectTimeoutMs;
  const heartbeat = options.heartbeatSeconds ?? CONNECT_DEFAULTS.heartbeatSeconds;
  const connect =
    options.connect ??
    (async (target: string) =>
      (await import('amqplib')).connect(withHeartbeat(target, heartbeat), { timeout: timeoutMs }));
  const connection = await connect(url);
  let resolveLost: (reason: unknown) => void = () => undefined;
  const lost = new Promise<unknown>((resolve) => {
    resolveLost = resolve;
  });
  // 'error' always comes with 'close'; listening keeps an unhandled 'error' from throwing. The
  // connection's own 'close' is the earliest sign of a dead node: the consumer's `closed` settles
  // only once its in-flight handlers have returned.
  connection.on('error', () => undefined);
  connection.once('close', (error?: unknown) =>
    resolveLost(
      new RetryTopologyError('channel-closed', `the connection to ${withoutCredentials(url)} closed`, {
        cause: error,
      }),
    ),
  );
  try {
    const channel: ConfirmChannel = await connection.createConfirmChannel();
    channel.on('error', () => undefined);
    const consumer = await consumeWithRetries(channel, plan, handler, options);
    // The broker closed the channel, or cancelled the consumer (its queue was deleted).
    consumer.closed.then(
      () => undefined,
      (error: unknown) => resolveLost(error),
    );
    return {
      lost,
      async close() {
        await consumer.stop().catch(() => undefined);
        await connection.close().catch(() => undefined);
      },
    };
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw error;
  }
}

/**
 * consumeWithRetries through a list of node URLs: consumes on one node, and on another when that
 * one is lost. Each session has its own connection and confirm channel.
 */
export function consumeWithFailover(
  urls: readonly string[],
  plan: RetryPlan,
  handler: RabbitHandler,
  options: RabbitFailoverOptions = {},
): Promise<FailoverConsumer> {
  const timeoutMs = options.connectTimeoutMs ?? CONNECT_DEFAULTS.connectTimeoutMs;
  return runFailover(urls, (url) => withinTimeout(url, timeoutMs, openSession(url, plan, handler, options)), {
    ...options,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.random ? { random: options.random } : {}),
  });
}
