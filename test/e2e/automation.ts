import { dirname } from 'node:path';
import { LocalWorkspace, PulumiCommand, type Stack } from '@pulumi/pulumi/automation';
import type { Engine } from './engine';
import type { Workspace } from './workspace';

/**
 * The workspace's stack through the Automation API, as a CI integration drives it
 * (`@pulumi/pulumi/automation`'s LocalWorkspace): the same project, backend, PULUMI_HOME and
 * engine build as the CLI steps. Its `up()` and `destroy()` always run `--skip-preview`.
 */
export async function automationStack(engine: Engine, workspace: Workspace): Promise<Stack> {
  if (!engine.pulumi.endsWith('/bin/pulumi')) {
    throw new Error(`the Automation API wants <root>/bin/pulumi; the engine is ${engine.pulumi}`);
  }
  const pulumiCommand = await PulumiCommand.get({ root: dirname(dirname(engine.pulumi)) });
  const envVars = Object.fromEntries(
    Object.entries(workspace.env).filter(
      (entry): entry is [string, string] => entry[0].startsWith('PULUMI_') && typeof entry[1] === 'string',
    ),
  );
  return LocalWorkspace.selectStack(
    { stackName: workspace.stack, workDir: workspace.project },
    {
      pulumiCommand,
      envVars,
      ...(workspace.env.PULUMI_HOME ? { pulumiHome: workspace.env.PULUMI_HOME } : {}),
    },
  );
}
