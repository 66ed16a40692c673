import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import type { ServiceBusPlan } from '../../policy/plan/types';
import { readAttemptCarried } from '../attempt';
import type { DeadLetterInfo } from '../dead-letter';
import { describeError, HEADERS } from '../dead-letter';
import type { TargetRules } from '../decide';
import { runHandler } from '../run-handler';
import type { SettlingReceiver } from './contract';
import { firstFailureOf, retryCopy } from './copy';
import { deadLetterOptions } from './dead-letter';
import { ServiceBusRetryError } from './errors';
import { lockGuard } from './lock-guard';
import { messageIdOf } from './message-id';
import type { ResolvedOptions } from './options';
import type { ServiceBusOutcome } from './outcome';

export interface Processing {
  rules: TargetRules & ServiceBusPlan;
  options: ResolvedOptions;
  signal: AbortSignal;
}

type Settled = Pick<ServiceBusOutcome, 'settleError'>;

/** One peek-locked message: read the attempt, run the handler, carry out the decision. */
export async function processMessage(
  processing: Processing,
  receiver: SettlingReceiver,
  message: ServiceBusReceivedMessage,
): Promise<ServiceBusOutcome> {
  const { rules, options, signal } = processing;
  const { clock } = options;
  const receivedAt = clock.now();
  const messageId = messageIdOf(message);
  const reading = readAttemptCarried(
    message.applicationProperties?.[rules.attemptProperty],
    message.applicationProperties?.[HEADERS.attemptInvalid],
  );
  const attempt = reading.attempt;

  // Stopping before the handler ran: hand the message on untouched.
  if (signal.aborted) return { kind: 'abandoned', attempt, handlerCalls: 0, ...(await abandon()) };

  let lastCallMs = 0;
  let failedAt: number | undefined;
  const guard = lockGuard({
    message,
    receiver,
    rules,
    clock,
    receivedAt,
    settleMarginMs: options.settleMarginMs,
    messageId,
    onError: options.onError,
  });
  const run = await runHandler(rules, {
    attempt,
    clock,
    random: options.random,
    metrics: options.metrics,
    signal,
    call: async () => {
      const started = clock.now();
      try {
        await options.handler(message, { attempt, messageId, signal });
      } catch (error) {
        failedAt ??= clock.now();
        throw error;
      } finally {
        lastCallMs = clock.now() - started;
      }
    },
    beforeImmediate: ({ delayMs }) => guard.covers({ delayMs, lastCallMs }),
  });
  const firstFailureAt = firstFailureOf(message) ?? failedAt ?? clock.now();
  // A failure that ends while the consumer stops comes back as requeue (run-handler.ts).
  const { decision } = run;
  const base = { attempt, handlerCalls: run.handlerCalls };

  switch (decision.kind) {
    case 'ack': {
      options.metrics.attempt('success');
      return {
        kind: 'completed',
        ...base,
        ...(await settle('complete', () => receiver.completeMessage(message))),
      };
    }
    case 'delayed': {
      const scheduledFor = new Date(clock.now() + decision.delayMs);
      const copy = retryCopy(message, {
        attemptProperty: rules.attemptProperty,
        attempt: decision.nextAttempt,
        firstFailureAt,
        ...(reading.invalid === undefined ? {} : { attemptInvalid: reading.invalid }),
      });
      try {
        await options.sender.scheduleMessages(copy, scheduledFor);
      } catch (cause) {
        // Never complete an original whose copy was not accepted, and never abandon it (an
        // immediate redelivery, no wait): leave it locked. It comes back when the lock expires.
        const error = failure(
          'schedule-refused',
          `scheduling the retry copy on ${rules.scheduleTo} failed`,
          cause,
        );
        options.metrics.attempt('requeued');
        return { kind: 'kept', ...base, error };
      }
      options.metrics.retryScheduled('delayed', decision.level);
      options.metrics.attempt('retry');
      // A crash or a lost lock from here on leaves the copy and the original: a duplicate.
      return {
        kind: 'scheduled',
        ...base,
        level: decision.level,
        delayMs: decision.delayMs,
        nextAttempt: decision.nextAttempt,
        destination: decision.destination,
        scheduledFor,
        ...(await settle('complete', () => receiver.completeMessage(message))),
      };
    }
    case 'dead-letter': {
      const described = describeError(run.error);
      const info: DeadLetterInfo = {
        reason: decision.reason,
        because: decision.because,
        errorName: described.name,
        errorMessage: described.message,
        attempt,
        source: receiver.entityPath,
        firstFailureAt,
        deadLetteredAt: clock.now(),
        ...(reading.invalid === undefined ? {} : { attemptInvalid: reading.invalid }),
      };
      options.metrics.attempt('dead-letter');
      const settled = await settle('dead-letter', () =>
        receiver.deadLetterMessage(message, deadLetterOptions(info, rules.maxAttempts)),
      );
      if (!settled.settleError) options.metrics.deadLettered(decision.reason);
      return {
        kind: 'dead-lettered',
        ...base,
        reason: decision.reason,
        because: decision.because,
        ...settled,
      };
    }
    case 'requeue':
      return { kind: 'abandoned', ...base, ...(await abandon()) };
  }

  /** Shutdown only: abandon hands the message to another consumer now, where a lock expiry would wait. */
  async function abandon(): Promise<Settled> {
    options.metrics.attempt('requeued');
    return settle('abandon', () => receiver.abandonMessage(message));
  }

  async function settle(what: string, call: () => Promise<void>): Promise<Settled> {
    try {
      await call();
      return {};
    } catch (cause) {
      return {
        settleError: failure(
          'settle-failed',
          `${what} failed; the message returns when its lock expires`,
          cause,
        ),
      };
    }
  }

  function failure(code: 'schedule-refused' | 'settle-failed', text: string, cause: unknown) {
    const error = new ServiceBusRetryError(code, text, {
      cause,
      ...(messageId === undefined ? {} : { messageId }),
    });
    options.onError(error);
    return error;
  }
}
