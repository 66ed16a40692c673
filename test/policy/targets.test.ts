import { describe, expect, expectTypeOf, it } from 'vitest';
import { type TargetName as ComponentTarget, TARGET_NAMES } from '../../components/plan';
import type { RetryPlan } from '../../policy';
import { TARGETS, type TargetName } from '../../policy/plan/targets';
import type { TargetName as RuntimeTarget } from '../../runtime';

describe('the list of targets', () => {
  it('is rabbitmq, kafka, serviceBus, in the order every listing prints', () => {
    expect(TARGETS).toEqual(['rabbitmq', 'kafka', 'serviceBus']);
    expect(TARGET_NAMES).toBe(TARGETS);
  });

  it("names exactly the plan's targets, and the runtime and components use the same type", () => {
    expectTypeOf<TargetName>().toEqualTypeOf<keyof RetryPlan['targets']>();
    expectTypeOf<RuntimeTarget>().toEqualTypeOf<TargetName>();
    expectTypeOf<ComponentTarget>().toEqualTypeOf<TargetName>();
  });
});
