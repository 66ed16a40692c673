import type * as pulumi from '@pulumi/pulumi';
import type { RetryPlan } from '../policy';
import type { TargetName } from './plan';

/**
 * What a child is to the messages that pass through it. This, not the resource type, decides its
 * default resource options.
 * - `lasting`: lives as long as the topology, and deleting or replacing it loses messages: the
 *   main queue and dead-letter queue (and their policies, which carry the DLX and the delivery
 *   limit), the dead-letter topic, a declared source exchange or topic (deleting an exchange drops
 *   every publish and every other consumer's binding), the Service Bus entities. Protected.
 * - `retry-level`: exists once per delay level (wait queue with its policy and binding, retry
 *   topic). Lowering maxAttempts removes the last level while it may still hold messages: kept on
 *   the broker (retainOnDelete), where its policy keeps returning them to the main queue.
 * - `plain`: holds no messages and can be recreated (the DLX and retry exchange, other bindings,
 *   users, permissions, ACLs, authorization rules).
 */
export type Lifecycle = 'lasting' | 'retry-level' | 'plain';

export interface LifecycleSettings {
  /**
   * Protect the `lasting` children, so an edit that would delete or replace one fails
   * `pulumi preview` instead of losing its messages. Default true; stacks that are destroyed and
   * created again (dev, ci) set false.
   */
  protectMessages?: boolean;
  /** Leave a removed retry level's entities on the broker instead of deleting them. Default true. */
  retainRetryLevels?: boolean;
}

/** Every default of the lifecycle settings, in one place. */
export const LIFECYCLE_DEFAULTS: Required<LifecycleSettings> = {
  protectMessages: true,
  retainRetryLevels: true,
};

/** The lifecycle settings with every default applied. */
export function resolveLifecycle(settings: LifecycleSettings = {}): Required<LifecycleSettings> {
  return {
    protectMessages: settings.protectMessages ?? LIFECYCLE_DEFAULTS.protectMessages,
    retainRetryLevels: settings.retainRetryLevels ?? LIFECYCLE_DEFAULTS.retainRetryLevels,
  };
}

/** The options a caller gave the component that Pulumi does not pass on to children by itself. */
export interface InheritedOptions {
  protect?: boolean;
  retainOnDelete?: boolean;
}

/**
 * protect and retainOnDelete for one child.
 * - `protect` is left undefined unless the lifecycle asks for it: the SDK then copies the
 *   component's own `protect` to the child. `protect: true` on the component protects everything;
 *   the opt-out for lasting children is `protectMessages: false`, not `protect: false`.
 * - `retainOnDelete` is not inherited by Pulumi, so a component-level `true` is forwarded here.
 * - `aliases` are not forwarded: the engine derives each child's aliases from its parent's.
 */
export function lifecycleOptions(
  lifecycle: Lifecycle,
  settings: Required<LifecycleSettings>,
  inherited: InheritedOptions,
): { protect?: boolean; retainOnDelete?: boolean } {
  const out: { protect?: boolean; retainOnDelete?: boolean } = {};
  if (lifecycle === 'lasting') out.protect = inherited.protect === true || settings.protectMessages;
  if (inherited.retainOnDelete === true) out.retainOnDelete = true;
  else if (lifecycle === 'retry-level' && settings.retainRetryLevels) out.retainOnDelete = true;
  return out;
}

/** The inherited options of a component's own options bag. */
export function inheritedOptions(opts: pulumi.ComponentResourceOptions | undefined): InheritedOptions {
  return {
    ...(opts?.protect === undefined ? {} : { protect: opts.protect }),
    ...(opts?.retainOnDelete === undefined ? {} : { retainOnDelete: opts.retainOnDelete }),
  };
}

/**
 * What a component hands to `super()`. Pulumi stores these in state as plaintext, so they are a
 * label and nothing else: never the caller's args, which may hold a password.
 */
export function componentInputs(plan: RetryPlan, targets: readonly TargetName[]): Record<string, unknown> {
  return { policy: plan.policy, planVersion: plan.planVersion, targets: [...targets] };
}
