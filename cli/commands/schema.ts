import { policyJsonSchema } from '../../policy';
import { parseCommandArgs, UsageError } from '../args';
import { type CommandHelp, EXIT_BUG, EXIT_LINE_WRONG } from '../help';
import { EXIT, type Output } from '../output';
import { packageVersion } from '../package-version';

export const SCHEMA_HELP: CommandHelp = {
  usage: `retry-topology schema

  Prints the JSON Schema of a policy document (published as schema/retry-policy.schema.json).`,
  exits: [[EXIT.ok, 'the schema is printed'], EXIT_LINE_WRONG, EXIT_BUG],
};

/**
 * Where a released copy of the schema stays: the file at the release's git tag, as GitHub serves
 * it. It is there once the tag is pushed, so it works for a version installed from git, before or
 * without a release on npm.
 */
export function schemaUrl(version: string): string {
  return `https://raw.githubusercontent.com/retry-topology/retry-topology/v${version}/schema/retry-policy.schema.json`;
}

export async function schemaCommand(args: string[], output: Output): Promise<number> {
  // Parsed like every command's, so an unknown option or a stray word is refused the same way
  // (exit 2) instead of being ignored by a command that reads nothing from its arguments.
  const { positionals } = parseCommandArgs(args, {});
  if (positionals.length > 0)
    throw new UsageError(`schema takes no argument, got ${JSON.stringify(positionals[0])}`);
  const schema = { ...policyJsonSchema(), $id: schemaUrl(packageVersion()) };
  output.out(JSON.stringify(schema, null, 2));
  return EXIT.ok;
}
