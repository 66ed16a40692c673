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

interface Counter {
  add(value: number, attributes?: Record<string, string | number>): void;
}
interface Histogram {
  record(value: number, attributes?: Record<string, string | number>): void;
}
/** The part of @opentelemetry/api's Meter we use; a real Meter satisfies it. */
export interface MeterLike {
  createCounter(name: string, options?: { description?: string; unit?: string }): Counter;
  createHistogram(name: string, options?: { description?: string; unit?: string }): Histogram;
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
  // Attribute sets are few and fixed: build each once instead of on every message.
  const cache = new Map<string, Record<string, string | number>>();
  const attributes = (key: string, extra: Record<string, string | number>) => {
    let found = cache.get(key);
    if (!found) {
      found = { ...labels, ...extra };
      cache.set(key, found);
    }
    return found;
  };
  return {
    attempt: (outcome) => attempts.add(1, attributes(`a/${outcome}`, { outcome })),
    retryScheduled: (kind, level) => retries.add(1, attributes(`r/${kind}/${level}`, { kind, level })),
    deadLettered: (reason) => deadLetters.add(1, attributes(`d/${reason}`, { reason })),
    handlerDuration: (ms, outcome) => duration.record(ms, attributes(`h/${outcome}`, { outcome })),
  };
}
