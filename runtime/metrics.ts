import type { DeadLetterReason } from './decide';

/**
 * OpenTelemetry metrics through `@opentelemetry/api`, an optional peer dependency. Without it,
 * or without a meter provider registered, every call is a no-op.
 */

export interface RetryMetrics {
  /** One per delivery to the handler, with how it ended. */
  attempt(outcome: 'success' | 'retry' | 'dead-letter' | 'requeued'): void;
  /** A retry scheduled: immediate (in memory) or delayed (level n). */
  retryScheduled(kind: 'immediate' | 'delayed', level: number): void;
  deadLettered(reason: DeadLetterReason): void;
  /** One handler call, in milliseconds. */
  handlerDuration(ms: number, outcome: 'success' | 'failure'): void;
}

/** The part of @opentelemetry/api's Counter the runtime uses. */
export interface CounterLike {
  add(value: number, attributes?: Record<string, string | number>): void;
}
/** The part of @opentelemetry/api's Histogram the runtime uses. */
export interface HistogramLike {
  record(value: number, attributes?: Record<string, string | number>): void;
}
/** The part of @opentelemetry/api's Meter we use; a real Meter satisfies it. */
export interface MeterLike {
  createCounter(name: string, options?: { description?: string; unit?: string }): CounterLike;
  createHistogram(name: string, options?: { description?: string; unit?: string }): HistogramLike;
}

export const noMetrics: RetryMetrics = {
  attempt: () => {},
  retryScheduled: () => {},
  deadLettered: () => {},
  handlerDuration: () => {},
};

/** The global meter from @opentelemetry/api, or undefined when the package is not installed. */
export function globalMeter(): MeterLike | undefined {
  try {
    // A peer dependency the user may not have: load it only if it is there.
    const api = require('@opentelemetry/api') as { metrics: { getMeter(name: string): MeterLike } };
    return api.metrics.getMeter('retry-topology');
  } catch {
    return undefined;
  }
}

export function createMetrics(
  labels: { policy: string; target: string },
  meter: MeterLike | undefined = globalMeter(),
): RetryMetrics {
  if (!meter) return noMetrics;
  const attempts = meter.createCounter('retry_topology.attempts', {
    description: 'Deliveries to the handler, by outcome',
  });
  const retries = meter.createCounter('retry_topology.retries_scheduled', {
    description: 'Retries scheduled, by kind and level',
  });
  const deadLetters = meter.createCounter('retry_topology.dead_letters', {
    description: 'Messages dead-lettered, by reason',
  });
  const duration = meter.createHistogram('retry_topology.handler.duration', {
    description: 'Handler call time',
    unit: 'ms',
  });
  // Attribute sets are few and fixed: build each once, looked up by its value (no key string per call).
  const attempt = memo((outcome: string) => ({ ...labels, outcome }));
  const delayed = memo((level: number) => ({ ...labels, kind: 'delayed', level }));
  const immediate = memo((level: number) => ({ ...labels, kind: 'immediate', level }));
  const reason = memo((value: string) => ({ ...labels, reason: value }));
  const handler = memo((outcome: string) => ({ ...labels, outcome }));
  return {
    attempt: (outcome) => attempts.add(1, attempt(outcome)),
    retryScheduled: (kind, level) => retries.add(1, (kind === 'delayed' ? delayed : immediate)(level)),
    deadLettered: (value) => deadLetters.add(1, reason(value)),
    handlerDuration: (ms, outcome) => duration.record(ms, handler(outcome)),
  };
}

function memo<K, V>(make: (key: K) => V): (key: K) => V {
  const made = new Map<K, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) {
      value = make(key);
      made.set(key, value);
    }
    return value;
  };
}
