import { derivePlan, hasErrors, type LoadedPolicy, type RetryPlan } from '../policy';
import { TARGETS, type TargetName } from '../policy/plan/targets';
import { UsageError } from './args';
import type { Loaded } from './load-inputs';
import { EXIT, type Output, printIssues } from './output';
import { TARGET_CHOICES, targetNamed } from './targets';

/**
 * plan, render and simulate work on policies without errors. This picks them, and says on stderr
 * exactly why when it cannot: the inputs have errors (printed, exit 1), nothing was found
 * (exit 1), or --policy / --target name something the policies do not have (a UsageError, exit 2).
 */

/** The target a --target value names, or a UsageError for an unknown one. */
export function targetOption(value: string | undefined): TargetName | undefined {
  if (value === undefined) return undefined;
  const target = targetNamed(value);
  if (target) return target;
  throw new UsageError(`unknown target ${JSON.stringify(value)}: use ${TARGET_CHOICES}`);
}

const list = (names: readonly string[]) => names.map((name) => JSON.stringify(name)).join(', ');

/** Every policy, or the one --policy names. A number is the exit code after a message. */
export function selectPolicies(
  loaded: Loaded,
  inputs: string,
  policy: string | undefined,
  output: Output,
): LoadedPolicy[] | number {
  if (hasErrors(loaded.issues)) {
    printIssues(
      output,
      loaded.issues.filter((found) => found.severity === 'error'),
    );
    return EXIT.invalid;
  }
  if (loaded.policies.length === 0) {
    output.err(`✖ no retry policy in ${inputs}`);
    return EXIT.invalid;
  }
  if (policy === undefined) return loaded.policies;
  const chosen = loaded.policies.filter((each) => each.policy.name === policy);
  if (chosen.length === 0) {
    const names = loaded.policies.map((each) => each.policy.name);
    throw new UsageError(`no policy named ${JSON.stringify(policy)} in ${inputs} (it has: ${list(names)})`);
  }
  return chosen;
}

/** The targets a plan has, in the order rabbitmq, kafka, serviceBus. */
export function targetsOf(plan: RetryPlan): TargetName[] {
  return TARGETS.filter((key) => plan.targets[key]);
}

export function noTarget(plan: RetryPlan, target: TargetName | undefined): UsageError {
  const available = targetsOf(plan);
  return new UsageError(
    `policy ${JSON.stringify(plan.policy)} has no ${target ?? 'broker'} target${available.length ? ` (it has: ${available.join(', ')})` : ''}`,
  );
}

export interface Chosen {
  plan: RetryPlan;
  target: TargetName;
}

/**
 * render and simulate draw one policy on one target: --policy when there are several, --target
 * or else the first target the plan has, said on stderr so the output is never a guess.
 */
export function chooseOne(
  loaded: Loaded,
  inputs: string,
  options: { policy?: string | undefined; target?: TargetName | undefined },
  output: Output,
): Chosen | number {
  const policies = selectPolicies(loaded, inputs, options.policy, output);
  if (typeof policies === 'number') return policies;
  const [first, ...others] = policies;
  if (!first) return EXIT.invalid;
  if (others.length > 0) {
    const names = policies.map((each) => each.policy.name);
    throw new UsageError(`${inputs} holds ${names.length} policies; pick one with --policy (${list(names)})`);
  }
  const plan = derivePlan(first.policy);
  const available = targetsOf(plan);
  const picked = options.target ?? available[0];
  if (!picked || !plan.targets[picked]) throw noTarget(plan, options.target);
  if (!options.target && available.length > 1) {
    output.err(
      `ℹ target ${picked}: the first of ${available.join(', ')} in policy ${JSON.stringify(plan.policy)}; choose another with --target`,
    );
  }
  return { plan, target: picked };
}
