import { readFile } from 'node:fs/promises';
import { derivePlan, hasErrors, loadPolicyText, PLAN_VERSION, type RetryPlan } from '../../policy';
import { DeadLetterError } from '../../runtime/dead-letters';
import { type Output, printIssues } from '../output';
import { usageError } from './args';

/**
 * The dead-letter commands read the plan: from a policy file (derived here, exactly as the stack
 * derives it), or from a plan as JSON, such as the stack's `planJson` output
 * (`pulumi stack output planJson | retry-topology dead-letters list - --target kafka`).
 * Connection settings never come from here.
 */

async function readInput(input: string): Promise<string> {
  try {
    if (input === '-') {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    }
    return await readFile(input, 'utf8');
  } catch (cause) {
    throw new DeadLetterError('invalid-plan', `cannot read ${input}: ${(cause as Error).message}`, { cause });
  }
}

function looksLikeJson(input: string, text: string): boolean {
  return input.endsWith('.json') || /^\s*[[{"]/.test(text);
}

function isPlan(value: unknown): value is RetryPlan {
  if (value === null || typeof value !== 'object') return false;
  const plan = value as Partial<RetryPlan>;
  return (
    plan.planVersion === PLAN_VERSION &&
    typeof plan.policy === 'string' &&
    plan.targets !== null &&
    typeof plan.targets === 'object'
  );
}

function plansFromJson(input: string, text: string): RetryPlan[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
    // `pulumi stack output planJson --json` prints the output as a JSON string.
    if (typeof value === 'string') value = JSON.parse(value);
  } catch (cause) {
    throw new DeadLetterError('invalid-plan', `${input} is not valid JSON`, { cause });
  }
  const plans = Array.isArray(value) ? value : [value];
  if (plans.length === 0 || !plans.every(isPlan))
    throw new DeadLetterError(
      'invalid-plan',
      `${input} is not a retry-topology plan (planVersion ${PLAN_VERSION}, policy, targets): make one with \`retry-topology plan <file> --format json\``,
    );
  return plans;
}

/** The one plan to act on; undefined when the policy file has errors (printed). */
export async function loadPlan(
  input: string,
  policy: string | undefined,
  output: Output,
): Promise<RetryPlan | undefined> {
  const text = await readInput(input);
  let plans: RetryPlan[];
  if (looksLikeJson(input, text)) {
    plans = plansFromJson(input, text);
  } else {
    const loaded = loadPolicyText(text, input);
    const errors = loaded.issues.filter((found) => found.severity === 'error');
    // Neither a plan nor a policy (a Pulumi.yaml, an empty file): the wrong file, not a policy to fix.
    if (
      loaded.policies.length === 0 &&
      errors.length > 0 &&
      errors.every((found) => found.code === 'no-policy')
    )
      throw new DeadLetterError(
        'invalid-plan',
        `${input} is not a retry policy or a retry-topology plan: give a policy file or \`retry-topology plan <file> --format json\``,
      );
    if (hasErrors(loaded.issues)) {
      printIssues(output, loaded.issues);
      return undefined;
    }
    plans = loaded.policies.map((each) => derivePlan(each.policy));
  }
  const names = plans.map((plan) => plan.policy);
  const chosen = policy
    ? plans.find((plan) => plan.policy === policy)
    : plans.length === 1
      ? plans[0]
      : undefined;
  if (!chosen) {
    throw usageError(
      policy
        ? `no policy named "${policy}" in ${input} (it has: ${names.join(', ') || 'none'})`
        : `${input} holds ${names.length} policies; pick one with --policy (${names.join(', ')})`,
    );
  }
  return chosen;
}
