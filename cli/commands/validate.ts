import { hasErrors, hasWarnings } from '../../policy';
import { oneOf, parseCommandArgs, positionalCount } from '../args';
import { findingsJson, githubAnnotations } from '../format/findings';
import { type CommandHelp, EXIT_BUG, EXIT_LINE_WRONG } from '../help';
import { loadInputs } from '../load-inputs';
import { EXIT, issueLines, type Output, plural, summary } from '../output';
import { packageVersion } from '../version';

export const VALIDATE_HELP: CommandHelp = {
  usage: `retry-topology validate <file|dir|glob|->... [--strict] [--format text|json|github]

  Checks policy files: schema, every rule in docs/codes/ (on a policy with schema errors, each
  rule that can run on the rest), then what no single policy can (a name used twice, a broker
  entity two policies would both own). A directory is searched with its subdirectories for
  .yaml/.yml files; YAML files there that are not retry policies are skipped with a note. A glob
  is expanded here; - reads standard input.
  --format text (default): each finding with its file:line:column, path and code.
  --format json: every finding with file, line, column, path, code and severity.
  --format github: workflow annotations, so findings show on the pull request's lines.
  --strict: warnings fail too (acknowledged warnings are notes, and pass).`,
  exits: [
    [EXIT.ok, 'every policy is valid (warnings allowed, unless --strict)'],
    [EXIT.invalid, 'errors, or warnings with --strict, or an input that holds no policy'],
    EXIT_LINE_WRONG,
    EXIT_BUG,
  ],
};

const FORMATS = ['text', 'json', 'github'] as const;

export async function validateCommand(args: string[], output: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    strict: { type: 'boolean', default: false },
    format: { type: 'string', default: 'text' },
  });
  const format = oneOf('format', values.format, FORMATS);
  positionalCount(positionals, 1, Number.POSITIVE_INFINITY, 'a policy file, directory, glob or -');
  const loaded = await loadInputs(positionals, output);
  const { policies, issues } = loaded;
  const failed = hasErrors(issues) || (values.strict && hasWarnings(issues));

  if (format === 'json') {
    output.out(findingsJson(loaded, packageVersion(), !failed));
    return failed ? EXIT.invalid : EXIT.ok;
  }
  const count = `${plural(policies.length, 'policy', 'policies')} in ${plural(loaded.files, 'file')}`;
  const strictOnly = failed && values.strict && !hasErrors(issues) ? ' (--strict)' : '';
  const last = failed
    ? `✖ ${count}: ${summary(issues)}${strictOnly}`
    : `✔ ${count} valid (${summary(issues)})`;
  // The findings are validate's output: on stdout, with the summary after them, as linters print
  // them, so that `validate … | grep` sees them; the exit status says whether they failed the run.
  const findings = format === 'github' ? [githubAnnotations(issues)].filter(Boolean) : issueLines(issues);
  output.out([...findings, last].join('\n'));
  return failed ? EXIT.invalid : EXIT.ok;
}
