import { derivePlan, type RetryPlan } from '../../policy';
import type { TargetName } from '../../policy/plan/targets';
import { safeJson } from '../../policy/printable';
import { oneOf, parseCommandArgs, positionalCount, UsageError } from '../args';
import { planMarkdown, planText } from '../format/plan-text';
import { type CommandHelp, EXIT_BUG, EXIT_POLICY_ERRORS } from '../help';
import { loadInputs } from '../load-inputs';
import { EXIT, type Output } from '../output';
import { noTarget, selectPolicies, targetOption } from '../select';

export const PLAN_HELP: CommandHelp = {
  usage: `retry-topology plan <file|dir|glob|-> [--target rabbitmq|kafka|servicebus] [--format text|json|markdown] [--policy <name>]

  Prints what a policy becomes: the attempt timeline per target, every broker resource, where
  dead letters end up, and the findings (acknowledged warnings with their reason).
  --format json prints the plan as the components and the runtime read it: one object, or an
  array when the input holds several policies (narrow it with --policy). With --target, only
  the policies that have that target (exit 2 if none has it).`,
  exits: [
    [EXIT.ok, 'the plan is printed'],
    EXIT_POLICY_ERRORS,
    [
      EXIT.usage,
      'the command line is wrong, --policy names no policy of the input, or no policy has the --target',
    ],
    EXIT_BUG,
  ],
};

const FORMATS = ['text', 'json', 'markdown'] as const;

function only(plan: RetryPlan, target: TargetName | undefined): RetryPlan {
  if (!target) return plan;
  const kept = plan.targets[target];
  return { ...plan, targets: kept ? { [target]: kept } : {} };
}

export async function planCommand(args: string[], output: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    target: { type: 'string' },
    format: { type: 'string', default: 'text' },
    policy: { type: 'string' },
  });
  const format = oneOf('format', values.format, FORMATS);
  const [input = ''] = positionalCount(positionals, 1, 1, 'policy file, directory, glob or -');
  const target = targetOption(values.target);
  const chosen = selectPolicies(await loadInputs(positionals, output), input, values.policy, output);
  if (typeof chosen === 'number') return chosen;
  const all = chosen.map((loaded) => derivePlan(loaded.policy));
  const plans = target ? all.filter((plan) => plan.targets[target]) : all;
  if (plans.length === 0)
    throw all.length === 1 && all[0]
      ? noTarget(all[0], target)
      : new UsageError(`no policy in ${input} has a ${target} target`);
  if (plans.length < all.length) {
    const left = all.filter((plan) => !plans.includes(plan)).map((plan) => JSON.stringify(plan.policy));
    output.err(`ℹ left out, without a ${target} target: ${left.join(', ')}`);
  }
  const shown = plans.map((plan) => only(plan, target));
  if (format === 'json') {
    output.out(safeJson(shown.length === 1 ? shown[0] : shown));
    return EXIT.ok;
  }
  const render = format === 'markdown' ? planMarkdown : planText;
  output.out(shown.map((plan) => render(plan, target)).join('\n'));
  return EXIT.ok;
}
