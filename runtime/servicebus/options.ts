import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { type Clock, mathRandom, type Random, systemClock } from '../clock';
import { createMetrics, type RetryMetrics } from '../metrics';
import { stopTimeoutOf } from '../stop-deadline';
import type { ScheduleSender } from './contract';
import type { ServiceBusRetryError } from './errors';

/** What the handler gets besides the message. */
export interface ServiceBusHandlerContext {
  /** This delivery's attempt, from 1, read from our own application property. */
  attempt: number;
  /** The messageId as text: with `attempt`, what an idempotent handler keys on. */
  messageId: string | undefined;
  /** Aborted when the consumer stops. */
  signal: AbortSignal;
}

/** Throw to fail; the policy's classification says whether the failure is retried. */
export type ServiceBusHandler = (
  message: ServiceBusReceivedMessage,
  context: ServiceBusHandlerContext,
) => Promise<void>;

export interface ServiceBusRetryOptions {
  handler: ServiceBusHandler;
  /** A sender for the plan's `scheduleTo` entity: retry copies are scheduled there. */
  sender: ScheduleSender;
  clock?: Clock;
  random?: Random;
  /** Defaults to OpenTelemetry metrics on the global meter (a no-op without @opentelemetry/api). */
  metrics?: RetryMetrics;
  /** Stops the consumer, like `stop()`. */
  signal?: AbortSignal;
  /**
   * Lock time kept back after the last handler call for scheduling the copy and completing the
   * original (two broker round trips), and for clock skew with the broker.
   */
  settleMarginMs?: number;
  /** Broker calls that failed; the outcome says what became of the message. */
  onError?: (error: ServiceBusRetryError) => void;
  /**
   * How long stop() waits for the messages in hand. Their handlers' stop signal aborts at once; a
   * message whose handler still runs when this passes is left locked (it comes back, at the same
   * attempt, when its lock expires) and stop() resolves. Default 10 s.
   */
  stopTimeoutMs?: number;
}

export const SERVICE_BUS_DEFAULTS = {
  clock: systemClock,
  random: mathRandom,
  /** Two settle calls normally take milliseconds; 5 s also absorbs a slow call and some skew. */
  settleMarginMs: 5_000,
  /** Node's channel for library warnings: visible by default, and a process can route it. */
  onError: (error: ServiceBusRetryError) => process.emitWarning(error),
};

export type ResolvedOptions = Required<Omit<ServiceBusRetryOptions, 'signal'>>;

/** Defaults applied once, here; `undefined` keeps the default. */
export function resolveOptions(policy: string, input: ServiceBusRetryOptions): ResolvedOptions {
  return {
    handler: input.handler,
    sender: input.sender,
    clock: input.clock ?? SERVICE_BUS_DEFAULTS.clock,
    random: input.random ?? SERVICE_BUS_DEFAULTS.random,
    metrics: input.metrics ?? createMetrics({ policy, target: 'serviceBus' }),
    settleMarginMs: input.settleMarginMs ?? SERVICE_BUS_DEFAULTS.settleMarginMs,
    onError: input.onError ?? SERVICE_BUS_DEFAULTS.onError,
    stopTimeoutMs: stopTimeoutOf(input.stopTimeoutMs),
  };
}
