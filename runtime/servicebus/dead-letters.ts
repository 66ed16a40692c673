import { createRequire } from 'node:module';
import type { ServiceBusReceivedMessage, ServiceBusReceiver, ServiceBusSender } from '@azure/service-bus';
import type { RetryPlan, ServiceBusPlan } from '../../policy/plan/types';
import type { Clock, Random } from '../clock';
import { systemClock } from '../clock';
import type { Claim, DeadLetterBroker } from '../dead-letters/broker';
import { DeadLetterError } from '../dead-letters/errors';
import { requireDeadLetters } from '../dead-letters/locations';
import { replayedHeaders } from '../dead-letters/metadata';
import { type DeadLetters, deadLetterCommands } from '../dead-letters/tool';
import type { DeadLetter } from '../dead-letters/types';
import { retryCopy } from './copy';
import { readServiceBusDeadLetter } from './dead-letter-read';

/** A receiver on one dead-letter subqueue (`subQueueType: 'deadLetter'`), in peekLock mode. */
export type DeadLetterReceiver = Pick<
  ServiceBusReceiver,
  | 'entityPath'
  | 'receiveMode'
  | 'peekMessages'
  | 'receiveMessages'
  | 'completeMessage'
  | 'abandonMessage'
  | 'renewMessageLock'
>;

/** Sends the replayed copies, on the plan's `scheduleTo` queue. */
export type ReplaySender = Pick<ServiceBusSender, 'entityPath' | 'sendMessages'>;

export interface ServiceBusDeadLetterOptions {
  /** One receiver per dead-letter subqueue the plan has (see deadLetterLocations: one or two). */
  receivers: DeadLetterReceiver[];
  sender: ReplaySender;
  /** How long a receive waits for the first message before a subqueue counts as read to its end. */
  receiveWaitMs?: number;
  clock?: Clock;
  random?: Random;
}

type Long = NonNullable<ServiceBusReceivedMessage['sequenceNumber']>;

interface Held {
  message: ServiceBusReceivedMessage;
  receiver: DeadLetterReceiver;
  /** The sequence numbers its subqueue has handed over in this claim. */
  known: Set<string>;
}

const PEEK_PAGE = 100;
const DEFAULT_RECEIVE_WAIT_MS = 3_000;
/** A lock with less than this left is renewed before the copy is sent, so complete finds it held. */
const LOCK_MARGIN_MS = 10_000;
const MAX_BATCH = 50;
/** When the command says no rate (a purge settles as fast as the broker answers). */
const DEFAULT_RATE = 100;

/** Sequence number 0, as the SDK's own Long (loaded only when the SDK is in use). */
function firstSequence(): Long {
  const fromSdk = createRequire(require.resolve('@azure/service-bus'));
  return (fromSdk('long') as { fromNumber(value: number): Long }).fromNumber(0);
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * The dead-letter subqueues of a plan's Service Bus target. `list` and `show` peek (no lock, no
 * delivery counted). A replay receives in peek-lock, sends the copy to `scheduleTo` (never to a
 * topic, where every subscription would get it), and completes the dead letter only after the
 * send succeeded: a crash or a lost lock in between leaves both (a duplicate), never neither.
 * Messages it does not act on keep their lock until the command ends and are then abandoned.
 */
export function serviceBusDeadLetters(plan: RetryPlan, options: ServiceBusDeadLetterOptions): DeadLetters {
  const locations = requireDeadLetters(plan, 'serviceBus');
  const serviceBus = plan.targets.serviceBus as ServiceBusPlan;
  const clock = options.clock ?? systemClock;
  const waitMs = options.receiveWaitMs ?? DEFAULT_RECEIVE_WAIT_MS;
  const tagged = locations.length > 1;
  const sources = locations.map((location, index) => {
    const receiver = options.receivers.find((each) => same(each.entityPath, location.name));
    if (!receiver)
      throw new DeadLetterError(
        'invalid-option',
        `no receiver for ${location.name} (the receivers are for ${options.receivers.map((each) => each.entityPath).join(', ') || 'nothing'})`,
      );
    if (receiver.receiveMode !== 'peekLock')
      throw new DeadLetterError(
        'invalid-option',
        `the receiver for ${location.name} must be in peekLock mode: a dead letter is completed only after its copy is sent`,
      );
    const entity = location.name.replace(/\/\$DeadLetterQueue$/i, '');
    const ours = location.onlyFrom?.map((each) => each.toLowerCase());
    return {
      receiver,
      path: location.name,
      entity,
      ...(tagged ? { tag: index === 0 ? 'entity' : 'retry' } : {}),
      /** A queue dead letters are forwarded to holds others' too: only those from our entities count. */
      belongs: (message: ServiceBusReceivedMessage) =>
        !ours || ours.includes((message.deadLetterSource ?? '').toLowerCase()),
    };
  });
  if (!same(options.sender.entityPath, serviceBus.scheduleTo))
    throw new DeadLetterError(
      'invalid-option',
      `replayed copies go to ${serviceBus.scheduleTo}, but the sender is for ${options.sender.entityPath}`,
    );

  const broker: DeadLetterBroker = {
    locations: locations.map((location) => location.name),
    replayTo: serviceBus.scheduleTo,
    maxInFlight: 1,
    async *browse() {
      for (const source of sources) {
        let from = firstSequence();
        for (;;) {
          const page = await source.receiver.peekMessages(PEEK_PAGE, { fromSequenceNumber: from });
          for (const message of page)
            if (source.belongs(message)) yield readServiceBusDeadLetter(message, source);
          const last = page[page.length - 1]?.sequenceNumber;
          if (page.length === 0 || !last) break;
          from = last.add(1);
        }
      }
    },
    async claim(_signal, hint) {
      const rate = hint?.ratePerSecond ?? DEFAULT_RATE;
      // Each message of a batch waits its turn under the pacer holding its lock: a batch is what
      // the pacer gets through in a quarter of the lock (the plan's, or the shorter one seen).
      let lockMs = serviceBus.lockDurationMs;
      const batchSize = () => Math.max(1, Math.min(MAX_BATCH, Math.floor((rate * lockMs) / 4_000)));
      const held = new Map<DeadLetter, Held>();
      const passedOver: Held[] = [];
      const buffered: DeadLetter[] = [];
      const seen = sources.map(() => new Set<string>());
      let index = 0;

      async function fill(): Promise<void> {
        while (buffered.length === 0 && index < sources.length) {
          const source = sources[index] as (typeof sources)[number];
          const known = seen[index] as Set<string>;
          const asked = clock.now();
          const received = await source.receiver.receiveMessages(batchSize(), { maxWaitTimeInMs: waitMs });
          let fresh = 0;
          for (const message of received) {
            const until = message.lockedUntilUtc?.getTime();
            if (until !== undefined && until > asked) lockMs = Math.min(lockMs, until - asked);
            const sequence = String(message.sequenceNumber);
            if (known.has(sequence)) {
              // Its lock ran out while passed over and it came back: hold it again, once.
              passedOver.push({ message, receiver: source.receiver, known });
              continue;
            }
            known.add(sequence);
            fresh++;
            if (!source.belongs(message)) {
              passedOver.push({ message, receiver: source.receiver, known });
              continue;
            }
            const letter = readServiceBusDeadLetter(message, source);
            held.set(letter, { message, receiver: source.receiver, known });
            buffered.push(letter);
          }
          if (fresh === 0) index++;
        }
      }

      /** The held message with a lock that outlasts the next calls; undefined when the lock is gone. */
      async function locked(letter: DeadLetter): Promise<Held | undefined> {
        const entry = held.get(letter);
        if (!entry)
          throw new DeadLetterError('invalid-option', 'that dead letter was not taken by this claim');
        held.delete(letter);
        const left = (entry.message.lockedUntilUtc?.getTime() ?? 0) - clock.now();
        if (left >= LOCK_MARGIN_MS) return entry;
        try {
          await entry.receiver.renewMessageLock(entry.message);
          return entry;
        } catch {
          // The lock ran out before its turn: the broker has it back, untouched. Forget it was
          // seen, so this pass can take it again.
          entry.known.delete(String(entry.message.sequenceNumber));
          if (index > sources.findIndex((source) => source.receiver === entry.receiver))
            index = sources.findIndex((source) => source.receiver === entry.receiver);
          return undefined;
        }
      }

      const claim: Claim = {
        async next() {
          await fill();
          return buffered.shift();
        },
        async replay(letter, copy) {
          const entry = await locked(letter);
          if (!entry) return 'released';
          const { message, receiver } = entry;
          const out = retryCopy(message, {
            attemptProperty: serviceBus.attemptProperty,
            attempt: 1,
            firstFailureAt: 0,
          });
          out.applicationProperties = replayedHeaders(message.applicationProperties ?? {}, {
            ...copy,
            replays: letter.replays,
          }) as NonNullable<typeof out.applicationProperties>;
          await options.sender.sendMessages(out);
          // A lost lock from here on leaves the dead letter and its copy: a duplicate, never a loss.
          await receiver.completeMessage(message);
          return 'done';
        },
        async remove(letter) {
          const entry = await locked(letter);
          if (!entry) return 'released';
          await entry.receiver.completeMessage(entry.message);
          return 'done';
        },
        async close() {
          const rest = [...held.values(), ...passedOver];
          held.clear();
          // Abandoned, they are available again at once; a lost lock already made them so.
          await Promise.all(
            rest.map(({ message, receiver }) => receiver.abandonMessage(message).catch(() => undefined)),
          );
        },
      };
      return claim;
    },
  };
  return deadLetterCommands(broker, options);
}
