import { derivePlan, hasErrors, loadPolicyFiles, type RetryPlan } from '../../policy';
import { TARGET_NAMES } from '../commands/plan';
import { TARGETS, type TargetKey } from '../format/describe-plan';
import { expandInputs } from '../inputs';
import { EXIT, type Output, printIssues } from '../output';

/**
 * render and simulate draw one picture of one policy on one target. This picks them: --policy
 * when the file holds several, --target or else the first target the plan has (in the order
 * rabbitmq, kafka, serviceBus), and says on stderr which it took so the output is never a guess.
 */

export interface Chosen {
  plan: RetryPlan;
  target: TargetKey;
}

export async function choosePlan(
  input: string,
  options: { policy?: string | undefined; target?: string | undefined },
  output: Output,
): Promise<Chosen | number> {
  const target = options.target === undefined ? undefined : TARGET_NAMES[options.target];
  if (options.target !== undefined && !target) {
    output.err(`✖ unknown target "${options.target}": use rabbitmq, kafka or servicebus`);
    return EXIT.usage;
  }
  const { policies, issues } = await loadPolicyFiles(await expandInputs([input]));
  if (hasErrors(issues)) {
    printIssues(output, issues);
    return EXIT.invalid;
  }
  const names = policies.map((loaded) => loaded.policy.name);
  const chosen = options.policy
    ? policies.find((loaded) => loaded.policy.name === options.policy)
    : policies.length === 1
      ? policies[0]
      : undefined;
  if (!chosen) {
    output.err(
      options.policy
        ? `✖ no policy named "${options.policy}" in ${input} (it has: ${names.join(', ')})`
        : `✖ ${input} holds ${names.length} policies; pick one with --policy (${names.join(', ')})`,
    );
    return EXIT.usage;
  }
  const plan = derivePlan(chosen.policy);
  const available = TARGETS.filter((key) => plan.targets[key]);
  const picked = target ?? available[0];
  if (!picked || !plan.targets[picked]) {
    output.err(
      `✖ policy "${plan.policy}" has no ${target ?? 'broker'} target${available.length ? ` (it has: ${available.join(', ')})` : ''}`,
    );
    return EXIT.usage;
  }
  if (!target && available.length > 1) {
    output.err(
      `ℹ target ${picked}: the first of ${available.join(', ')} in policy "${plan.policy}"; choose another with --target`,
    );
  }
  return { plan, target: picked };
}
