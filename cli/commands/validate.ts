import { parseArgs } from 'node:util';
import { hasErrors, loadPolicyFiles } from '../../policy';
import { expandInputs } from '../inputs';
import { EXIT, type Output, printIssues, summary } from '../output';

export const VALIDATE_USAGE = `retry-topology validate <file|dir>... [--strict]

  Checks policy files: schema, then every rule in docs/codes/. Prints each finding with its
  file:line:column, path and code. Exits 1 on errors (and on warnings with --strict).`;

export async function validateCommand(args: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { strict: { type: 'boolean', default: false } },
  });
  if (positionals.length === 0) {
    output.err(VALIDATE_USAGE);
    return EXIT.usage;
  }
  const files = await expandInputs(positionals);
  const { policies, issues } = await loadPolicyFiles(files);
  printIssues(output, issues);
  const failed = hasErrors(issues) || (values.strict && issues.length > 0);
  const count = `${policies.length} polic${policies.length === 1 ? 'y' : 'ies'} in ${files.length} file${files.length === 1 ? '' : 's'}`;
  if (failed) {
    output.err(`✖ ${count}: ${summary(issues)}${values.strict && !hasErrors(issues) ? ' (--strict)' : ''}`);
    return EXIT.invalid;
  }
  output.out(`✔ ${count} valid (${summary(issues)})`);
  return EXIT.ok;
}
