import type * as pulumi from '@pulumi/pulumi';
import type { RetryPlan } from '../policy';
import type { TargetName } from './plan';

/**
 * What a child is to the messages that pass through it. This, not the resource type, decides its
 * default resource options.
 * - `lasting`: on the message path for as long as the topology exists, in every plan of the
 *   target: the main queue and dead-letter queue with their policies (which carry the DLX and the
 *   delivery limit), the DLX and its binding to the DLQ, a declared source exchange (deleting it
 *   drops every publish and every other consumer's binding) and the source's binding to the main
 *   queue, the Kafka dead-letter topic and a declared source topic, the Service Bus entities.
 *   Protected.
 * - `retry-level`: on the message path while a delay level (or the mode that needs it) is in the
 *   plan: a wait queue with its policy and binding, the retry exchange, a retry topic. Lowering
 *   maxAttempts or changing the mode removes it while it may still hold or route messages: kept
 *   on the broker (retainOnDelete), where a kept wait queue's policy keeps returning its messages
 *   to the main queue.
 * - `plain`: holds and routes no messages and can be recreated (users, permissions, ACLs,
 *   authorization rules).
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
 * - `protect` is always set, never left to the SDK's inheritance: the component itself is
 *   protected while `protectMessages` holds (see `componentOptions`), and a child that inherited
 *   that would make a removed retry level undeletable. `protect: true` on the component protects
 *   everything; the opt-out for lasting children is `protectMessages: false`, not `protect: false`.
 * - `retainOnDelete` is not inherited by Pulumi, so a component-level `true` is forwarded here.
 * - `aliases` are not forwarded: the engine derives each child's aliases from its parent's.
 */
export function lifecycleOptions(
  lifecycle: Lifecycle,
  settings: Required<LifecycleSettings>,
  inherited: InheritedOptions,
): { protect: boolean; retainOnDelete?: boolean } {
  const out: { protect: boolean; retainOnDelete?: boolean } = {
    protect: inherited.protect === true || (lifecycle === 'lasting' && settings.protectMessages),
  };
  if (inherited.retainOnDelete === true) out.retainOnDelete = true;
  else if (lifecycle === 'retry-level' && settings.retainRetryLevels) out.retainOnDelete = true;
  return out;
}

/**
 * A target component's own options. While `protectMessages` holds, the component is protected and
 * its `replacementTrigger` is the target's identity (every input whose change would replace a
 * lasting child). The engine registers a component before any of its children (they wait for
 * its URN) and refuses to replace a protected resource, so an edit that would replace a lasting
 * child fails at the component, before anything of the target has changed: with or without a
 * preview, from the CLI or the Automation API. Turning protection off removes the trigger
 * (the engine treats a missing trigger as "no change").
 */
export function componentOptions(
  opts: pulumi.ComponentResourceOptions,
  settings: Required<LifecycleSettings>,
  identity: Record<string, unknown>,
): pulumi.ComponentResourceOptions {
  if (!settings.protectMessages) return opts;
  return { ...opts, protect: true, replacementTrigger: identity };
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
