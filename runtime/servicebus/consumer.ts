import type { ProcessErrorArgs, ServiceBusReceivedMessage, SubscribeOptions } from '@azure/service-bus';
import type { RetryPlan } from '../../policy/plan/types';
import { targetRules } from '../rules';
import { withinDeadline } from '../stop-deadline';
import type { PollingReceiver, SettlingReceiver, SubscribingReceiver } from './contract';
import { checkReceiver, checkSender } from './entities';
import { resolveOptions, type ServiceBusRetryOptions } from './options';
import type { ServiceBusOutcome } from './outcome';
import { type Processing, processMessage } from './process';

export interface ServiceBusRetry {
  /**
   * Handle one message received in peek-lock mode and settle it. Throws only for wiring mistakes
   * (wrong entity, not peek-lock), before touching the message; handler and broker failures end
   * in the outcome.
   */
  process(message: ServiceBusReceivedMessage, receiver: SettlingReceiver): Promise<ServiceBusOutcome>;
  /**
   * `receiver.subscribe` with auto-complete off: the wrapper settles every message itself, and
   * the SDK's auto-complete would complete a message whose copy was refused.
   */
  subscribe(
    receiver: SubscribingReceiver,
    handlers: { processError(args: ProcessErrorArgs): Promise<void> },
    options?: Omit<SubscribeOptions, 'autoCompleteMessages'>,
  ): { close(): Promise<void> };
  /** A `receiveMessages` loop that runs until `stop()` (or the signal); each batch is settled before the next. */
  receiveLoop(
    receiver: PollingReceiver,
    options?: { maxMessageCount?: number; maxWaitTimeInMs?: number },
  ): Promise<void>;
  /**
   * Stop: no new messages, the handlers' signal aborts, in-memory waits end, and a message whose
   * handler fails from then on is abandoned for another consumer at the same attempt;
   * subscriptions made here are closed. Resolves when every message in hand is settled, or at
   * `stopTimeoutMs` (those still in hand stay locked until their lock expires).
   */
  stop(): Promise<void>;
}

/** Messages per receiveMessages call and how long it waits for the first one. */
const RECEIVE_DEFAULTS = { maxMessageCount: 10, maxWaitTimeInMs: 60_000 };

export function createServiceBusRetry(plan: RetryPlan, input: ServiceBusRetryOptions): ServiceBusRetry {
  const rules = targetRules(plan, 'serviceBus');
  checkSender(rules, input.sender);
  const options = resolveOptions(plan.policy, input);
  const stopping = new AbortController();
  if (input.signal?.aborted) stopping.abort(input.signal.reason);
  input.signal?.addEventListener('abort', () => stopping.abort(input.signal?.reason), { once: true });
  const processing: Processing = { rules, options, signal: stopping.signal };
  const inHand = new Set<Promise<unknown>>();
  const subscriptions: Array<{ close(): Promise<void> }> = [];

  function track<T>(work: Promise<T>): Promise<T> {
    inHand.add(work);
    void work.finally(() => inHand.delete(work)).catch(() => {});
    return work;
  }

  const process: ServiceBusRetry['process'] = async (message, receiver) => {
    checkReceiver(rules, receiver);
    return track(processMessage(processing, receiver, message));
  };

  return {
    process,
    subscribe(receiver, handlers, subscribeOptions) {
      checkReceiver(rules, receiver);
      const subscription = receiver.subscribe(
        {
          processMessage: async (message) => {
            await process(message, receiver);
          },
          processError: (args) => handlers.processError(args),
        },
        { ...subscribeOptions, autoCompleteMessages: false },
      );
      subscriptions.push(subscription);
      return subscription;
    },
    async receiveLoop(receiver, loopOptions) {
      checkReceiver(rules, receiver);
      const { maxMessageCount, maxWaitTimeInMs } = { ...RECEIVE_DEFAULTS, ...loopOptions };
      while (!stopping.signal.aborted) {
        let batch: ServiceBusReceivedMessage[];
        try {
          batch = await receiver.receiveMessages(maxMessageCount, {
            maxWaitTimeInMs,
            abortSignal: stopping.signal,
          });
        } catch (error) {
          if (stopping.signal.aborted) return;
          throw error;
        }
        await Promise.all(batch.map((message) => process(message, receiver)));
      }
    },
    async stop() {
      stopping.abort(new Error('the Service Bus consumer is stopping'));
      const closing = Promise.all(subscriptions.splice(0).map((subscription) => subscription.close()));
      await withinDeadline(
        closing.then(() => Promise.allSettled([...inHand])),
        options.stopTimeoutMs,
      );
    },
  };
}
