import { rabbitMqSpecs } from '../../components/rabbitmq/specs';
import { derivePlan, formatIssue, hasErrors, loadPolicyFiles, type RetryPlan } from '../../policy';
import type { Workspace } from './workspace';

/** derivePlan of a policy file, as the program does it (infra/plans.ts), independently of the stack. */
export async function planOf(file: string): Promise<RetryPlan> {
  const { policies, issues } = await loadPolicyFiles([file]);
  if (hasErrors(issues)) throw new Error(`invalid policy ${file}:\n${issues.map(formatIssue).join('\n')}`);
  const [loaded] = policies;
  if (!loaded) throw new Error(`no policy in ${file}`);
  return derivePlan(loaded.policy);
}

/** The plan the stack published (`planJson` output): what an application loads to run with. */
export async function provisionedPlan(workspace: Workspace, policy: string): Promise<RetryPlan> {
  const { stdout } = await workspace.pulumi([
    'stack',
    'output',
    'topologies',
    '--json',
    '--show-secrets',
    '--stack',
    workspace.stack,
  ]);
  const topologies = JSON.parse(stdout) as Record<string, { planJson?: string }>;
  const json = topologies[policy]?.planJson;
  if (!json) throw new Error(`the stack has no planJson output for ${policy}: ${stdout}`);
  return JSON.parse(json) as RetryPlan;
}

/** Logical names of the RabbitMQ policy children whose arguments differ between two plans. */
export function changedPolicyChildren(before: RetryPlan, after: RetryPlan): string[] {
  const old = rabbitMqSpecs(requireRabbit(before)).policies;
  return rabbitMqSpecs(requireRabbit(after))
    .policies.filter((spec) => {
      const previous = old.find((each) => each.key === spec.key);
      return JSON.stringify(previous?.args) !== JSON.stringify(spec.args);
    })
    .map((spec) => `${after.policy}-${spec.key}`)
    .sort();
}

export function requireRabbit(plan: RetryPlan): NonNullable<RetryPlan['targets']['rabbitmq']> {
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error(`${plan.policy} has no rabbitmq target: the ci stack's policy must have one`);
  return rabbit;
}

export function requireKafka(plan: RetryPlan): NonNullable<RetryPlan['targets']['kafka']> {
  const target = plan.targets.kafka;
  if (!target) throw new Error(`${plan.policy} has no kafka target: the ci stack's policy must have one`);
  return target;
}
