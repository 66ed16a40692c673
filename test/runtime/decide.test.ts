import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide, drawWait, honourRetryAfter, targetRules } from '../../runtime';
import { billingPlan, httpError, InvalidCurrencyError } from './plan-fixture';

const NOW = Date.UTC(2026, 10, 30, 9, 0, 0);
const half = () => 0.5;

describe('decide, on the billing policy (RabbitMQ ttl-queues)', () => {
  const rules = targetRules(billingPlan(), 'rabbitmq');

  it('acks a success', () => {
    expect(decide(rules, { attempt: 1, immediateRetries: 0, now: NOW, random: half })).toEqual({
      kind: 'ack',
    });
  });

  it.each([
    [1, 1, 1000, 'billing.order-placed.retry.1'],
    [2, 2, 2000, 'billing.order-placed.retry.2'],
    [3, 3, 4000, 'billing.order-placed.retry.3'],
  ])('sends a 503 on attempt %i to level %i, %i ms, via %s', (attempt, level, delayMs, destination) => {
    expect(
      decide(rules, { attempt, immediateRetries: 0, error: httpError(503), now: NOW, random: half }),
    ).toEqual({
      kind: 'delayed',
      level,
      delayMs,
      destination,
      nextAttempt: attempt + 1,
    });
  });

  it('dead-letters a 503 on the last attempt as exhausted', () => {
    expect(
      decide(rules, { attempt: 4, immediateRetries: 0, error: httpError(503), now: NOW, random: half }),
    ).toMatchObject({
      kind: 'dead-letter',
      reason: 'exhausted',
    });
  });

  it('dead-letters an attempt beyond maxAttempts (after maxAttempts was lowered)', () => {
    expect(
      decide(rules, { attempt: 9, immediateRetries: 0, error: httpError(503), now: NOW, random: half }).kind,
    ).toBe('dead-letter');
  });

  it('dead-letters a permanent failure at once, on attempt 1', () => {
    expect(
      decide(rules, {
        attempt: 1,
        immediateRetries: 0,
        error: new InvalidCurrencyError('XXX'),
        now: NOW,
        random: half,
      }),
    ).toMatchObject({
      kind: 'dead-letter',
      reason: 'permanent',
    });
  });
});

describe('immediate retries', () => {
  const rules = targetRules(billingPlan({ immediate: { retries: 2, delay: '200ms' } }), 'kafka');

  it('come first, then the delayed level', () => {
    const at = (immediateRetries: number) =>
      decide(rules, { attempt: 1, immediateRetries, error: httpError(503), now: NOW, random: half });
    expect(at(0)).toEqual({ kind: 'immediate', delayMs: 200, retry: 1 });
    expect(at(1)).toEqual({ kind: 'immediate', delayMs: 200, retry: 2 });
    expect(at(2)).toMatchObject({ kind: 'delayed', level: 1 });
  });

  it('are skipped when the server asks for a longer wait', () => {
    const error = httpError(429, { 'retry-after': '2' });
    expect(decide(rules, { attempt: 1, immediateRetries: 0, error, now: NOW, random: half })).toMatchObject({
      kind: 'delayed',
      delayMs: 1000,
    });
  });
});

describe('jitter and Retry-After', () => {
  const full = targetRules(billingPlan({ jitter: 'full' }), 'kafka');

  it('draws the wait from the level’s range with the injected random source', () => {
    const at = (value: number) =>
      decide(full, { attempt: 2, immediateRetries: 0, error: httpError(503), now: NOW, random: () => value });
    expect(at(0)).toMatchObject({ delayMs: 0 });
    expect(at(0.5)).toMatchObject({ delayMs: 1000 });
    expect(at(0.9999999)).toMatchObject({ delayMs: 2000 });
  });

  it('honours Retry-After within the level’s bounds', () => {
    const error = (seconds: string) => httpError(503, { 'retry-after': seconds });
    const at = (seconds: string) =>
      decide(full, { attempt: 2, immediateRetries: 0, error: error(seconds), now: NOW, random: () => 0 });
    expect(at('1')).toMatchObject({ delayMs: 1000 });
    expect(at('60')).toMatchObject({ delayMs: 2000 });
  });

  it('drawWait stays inside any range, and Retry-After keeps it there', () => {
    fc.assert(
      fc.property(
        fc.nat(1_000_000),
        fc.nat(1_000_000),
        fc.double({ min: 0, max: 0.9999999, noNaN: true }),
        fc.option(fc.nat(5_000_000)),
        (a, b, value, hint) => {
          const range = { min: Math.min(a, b), max: Math.max(a, b) };
          const wait = honourRetryAfter(
            drawWait(range, () => value),
            range,
            hint ?? undefined,
          );
          expect(wait).toBeGreaterThanOrEqual(range.min);
          expect(wait).toBeLessThanOrEqual(range.max);
          expect(Number.isInteger(wait)).toBe(true);
        },
      ),
    );
  });
});
