import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { derivePlan, type PolicyInput, parsePolicy, type RetryPlan } from '../../policy';
import { entityNames, NAME_LIMITS } from '../../policy/plan/names';
import { validPolicy } from './arbitraries';

function plan(input: PolicyInput): RetryPlan {
  return derivePlan(parsePolicy(input));
}

function targetsOf(retry: RetryPlan) {
  return Object.values(retry.targets).filter((target) => target !== undefined);
}

describe('plan properties', () => {
  it('exponential delays never decrease, start at the initial wait and stay under the cap', () => {
    fc.assert(
      fc.property(validPolicy, (input) => {
        const { backoff } = input.spec;
        if (backoff.type !== 'exponential') return;
        const delays = plan(input).delaysMs;
        const initial = parsePolicy(input).backoff;
        if (initial.type !== 'exponential') return;
        delays.forEach((delay, index) => {
          if (index > 0) expect(delay).toBeGreaterThanOrEqual(delays[index - 1] ?? 0);
          if (initial.maxMs !== undefined) expect(delay).toBeLessThanOrEqual(initial.maxMs);
          expect(delay).toBeGreaterThanOrEqual(
            Math.min(initial.initialMs, initial.maxMs ?? Number.POSITIVE_INFINITY),
          );
        });
      }),
    );
  });

  it('every target has one stage per attempt, and waits and windows are ordered ranges', () => {
    fc.assert(
      fc.property(validPolicy, (input) => {
        const retry = plan(input);
        for (const target of targetsOf(retry)) {
          expect(target.stages.map((stage) => stage.attempt)).toEqual(
            Array.from({ length: input.spec.maxAttempts }, (_, index) => index + 1),
          );
          expect(target.levels).toHaveLength(input.spec.maxAttempts - 1);
          let previous = 0;
          for (const stage of target.stages) {
            expect(stage.waitMs.min).toBeLessThanOrEqual(stage.waitMs.max);
            expect(stage.windowMs.min).toBeLessThanOrEqual(stage.windowMs.max);
            expect(stage.windowMs.max).toBeGreaterThanOrEqual(previous);
            previous = stage.windowMs.max;
          }
          // Jitter only ever shortens a wait; the broker's linear delayed retry is the one exception.
          const linear = 'mode' in target && target.mode === 'quorum-delayed-retry';
          if (!linear)
            for (const level of target.levels) expect(level.waitMs.max).toBeLessThanOrEqual(level.delayMs);
        }
      }),
    );
  });

  it('entity names are unique, legal and within broker limits', () => {
    fc.assert(
      fc.property(validPolicy, (input) => {
        const retry = plan(input);
        const rabbit = retry.targets.rabbitmq;
        if (rabbit) {
          const names = rabbit.queues.map((queue) => queue.name);
          expect(new Set(names).size).toBe(names.length);
          for (const name of names)
            expect(Buffer.byteLength(name)).toBeLessThanOrEqual(NAME_LIMITS.rabbitmq.maxBytes);
        }
        const kafka = retry.targets.kafka;
        if (kafka) {
          const names = kafka.topics.map((topic) => topic.name);
          expect(new Set(names).size).toBe(names.length);
          for (const name of names) {
            expect(name).toMatch(NAME_LIMITS.kafka.pattern);
            expect(name.length).toBeLessThanOrEqual(NAME_LIMITS.kafka.maxChars);
          }
        }
      }),
    );
  });

  it('changing only the delays renames nothing', () => {
    fc.assert(
      fc.property(
        validPolicy,
        fc.integer({ min: 1, max: 100_000 }),
        fc.constantFrom(1, 1.5, 2, 3),
        (input, initialMs, multiplier) => {
          const retimed: PolicyInput = {
            ...input,
            spec: {
              ...input.spec,
              backoff: { type: 'exponential', initial: `${initialMs}ms`, multiplier, max: '1d' },
            },
          };
          const before = entityNames(parsePolicy(input));
          const after = entityNames(parsePolicy(retimed));
          expect(after).toEqual(before);
          const queues = (p: RetryPlan) => p.targets.rabbitmq?.queues.map((queue) => queue.name);
          const topics = (p: RetryPlan) => p.targets.kafka?.topics.map((topic) => topic.name);
          expect(queues(plan(retimed))).toEqual(queues(plan(input)));
          expect(topics(plan(retimed))).toEqual(topics(plan(input)));
        },
      ),
    );
  });

  it('is deterministic plain data', () => {
    fc.assert(
      fc.property(validPolicy, (input) => {
        const first = plan(input);
        expect(plan(structuredClone(input))).toEqual(first);
        expect(JSON.parse(JSON.stringify(first))).toEqual(first);
      }),
    );
  });
});
