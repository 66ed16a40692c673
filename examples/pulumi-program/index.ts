// A Pulumi program for retry-topology: every policy in the policy files becomes one
// RetryTopology, on the targets whose broker this stack configures. Copy this directory into your
// repository (README.md says how); examples/ci/pulumi.yml runs it.
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as pulumi from '@pulumi/pulumi';
import { derivePlan, formatIssue, hasErrors, loadPolicyFiles, sortIssues } from 'retry-topology';
import { RetryTopology, TARGET_NAMES, type TargetName } from 'retry-topology/components';

/**
 * The policies, a directory or one file: POLICIES, from the repository root, as the CI workflow
 * sets it for every step, so what it validates is what this program deploys. The repository root
 * is GITHUB_WORKSPACE in GitHub Actions; elsewhere the directory above this program.
 */
const root = process.env.GITHUB_WORKSPACE ?? '..';
const policyPath = resolve(root, process.env.POLICIES ?? 'policies');

/** The file, or the YAML files in the directory and below it, as `retry-topology validate` reads them. */
function policyFiles(path: string): string[] {
  let names: string[];
  try {
    if (statSync(path).isFile()) return [path];
    names = readdirSync(path, { recursive: true, encoding: 'utf8' });
  } catch (error) {
    throw new pulumi.RunError(
      `cannot read the policies at ${path} (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  const files = names
    .filter((name) => /\.ya?ml$/i.test(name))
    .filter((name) => !name.split(/[\\/]/).some((part) => part === 'node_modules' || part.startsWith('.')))
    .sort()
    .map((name) => join(path, name));
  // Pointed at the wrong directory, the program must fail, not deploy nothing.
  if (files.length === 0) throw new pulumi.RunError(`no .yaml or .yml file in ${path}`);
  return files;
}

/**
 * Why this stack builds no topology for a target: the provider's own config keys, as each provider
 * documents them, set in the stack's config file (secrets with `pulumi config set --secret`).
 */
function skipReason(target: TargetName): string | undefined {
  switch (target) {
    case 'rabbitmq':
      return new pulumi.Config('rabbitmq').get('endpoint')
        ? undefined
        : 'no rabbitmq:endpoint in stack config';
    case 'kafka':
      return new pulumi.Config('kafka').getObject('bootstrapServers')
        ? undefined
        : 'no kafka:bootstrapServers in stack config';
    case 'serviceBus':
      return serviceBus() ? undefined : `no ${pulumi.getProject()}:serviceBus in stack config`;
  }
}

/** Where Service Bus entities go: { resourceGroupName, namespaceName } in the project's config. */
function serviceBus(): { resourceGroupName: string; namespaceName: string } | undefined {
  return new pulumi.Config().getObject<{ resourceGroupName: string; namespaceName: string }>('serviceBus');
}

export = async () => {
  const { policies, issues } = await loadPolicyFiles(
    policyFiles(policyPath).map((file) => ({ file, found: true })),
  );
  const lines = sortIssues(issues).map(
    (found) => `${found.severity === 'error' ? '✖' : '⚠'} ${formatIssue(found)}`,
  );
  // A RunError stops the program with its message and no stack trace.
  if (hasErrors(issues)) throw new pulumi.RunError(`invalid retry policies:\n${lines.join('\n')}`);
  if (lines.length > 0) pulumi.log.warn(lines.join('\n'));

  const planJson: Record<string, pulumi.Output<string>> = {};
  for (const { policy } of policies) {
    const plan = derivePlan(policy);
    const targets = TARGET_NAMES.filter((target) => plan.targets[target] !== undefined).filter((target) => {
      const reason = skipReason(target);
      if (reason) pulumi.log.info(`${plan.policy}: ${target} skipped: ${reason}`);
      return reason === undefined;
    });
    if (targets.length === 0) continue;
    const sb = serviceBus();
    // The default providers read their own stack config (rabbitmq:endpoint, kafka:bootstrapServers…).
    const topology = new RetryTopology(plan.policy, { plan, targets, ...(sb ? { serviceBus: sb } : {}) });
    // What the consumers run with: the plan exactly as it was provisioned (docs/components.md).
    planJson[plan.policy] = topology.planJson;
  }
  return { planJson };
};
