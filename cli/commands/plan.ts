import { parseArgs } from 'node:util';
import { derivePlan, hasErrors, loadPolicyFiles, type RetryPlan } from '../../policy';
import type { TargetKey } from '../format/describe-plan';
import { planMarkdown, planText } from '../format/plan-text';
import { expandInputs } from '../inputs';
import { EXIT, type Output, printIssues } from '../output';

export const PLAN_USAGE = `retry-topology plan <file> [--target rabbitmq|kafka|servicebus] [--format text|json|markdown] [--policy <name>]

  Prints what a policy becomes: the attempt timeline per target and every broker resource.
  --format json prints the plan as the components and the runtime read it: one object, or an
  array when the file holds several policies (narrow it with --policy).`;

export const TARGET_NAMES: Record<string, TargetKey> = {
  rabbitmq: 'rabbitmq',
  kafka: 'kafka',
  servicebus: 'serviceBus',
  serviceBus: 'serviceBus',
};
const FORMATS = ['text', 'json', 'markdown'] as const;

function only(plan: RetryPlan, target: TargetKey | undefined): RetryPlan {
  if (!target) return plan;
  const kept = plan.targets[target];
  return { ...plan, targets: kept ? { [target]: kept } : {} };
}

export async function planCommand(args: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      target: { type: 'string' },
      format: { type: 'string', default: 'text' },
      policy: { type: 'string' },
    },
  });
  const format = FORMATS.find((name) => name === values.format);
  const target = values.target === undefined ? undefined : TARGET_NAMES[values.target];
  if (positionals.length !== 1 || !format || (values.target !== undefined && !target)) {
    output.err(PLAN_USAGE);
    return EXIT.usage;
  }
  const { policies, issues } = await loadPolicyFiles(await expandInputs(positionals));
  if (hasErrors(issues)) {
    printIssues(output, issues);
    return EXIT.invalid;
  }
  const chosen = values.policy ? policies.filter((loaded) => loaded.policy.name === values.policy) : policies;
  if (chosen.length === 0) {
    output.err(`✖ no policy named "${values.policy}" in ${positionals[0]}`);
    return EXIT.usage;
  }
  const plans = chosen.map((loaded) => only(derivePlan(loaded.policy), target));
  if (format === 'json') {
    output.out(JSON.stringify(plans.length === 1 ? plans[0] : plans, null, 2));
    return EXIT.ok;
  }
  const render = format === 'markdown' ? planMarkdown : planText;
  output.out(plans.map((plan) => render(plan, target)).join('\n'));
  return EXIT.ok;
}
