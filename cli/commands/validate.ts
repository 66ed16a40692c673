import { hasErrors, hasWarnings } from '../../policy';
import { oneOf, parseCommandArgs, positionalCount } from '../args';
import { findingsJson, githubAnnotations } from '../format/findings';
import { loadInputs } from '../load-inputs';
import { EXIT, type Output, plural, printIssues, summary } from '../output';
import { packageVersion } from '../version';

export const VALIDATE_USAGE = `retry-topology validate <file|dir|glob|->... [--strict] [--format text|json|github]

  Checks policy files: schema, then every rule in docs/codes/, then what no single policy can
  (a name used twice, a broker entity two policies would both own). A directory is searched with
  its subdirectories for .yaml/.yml files; YAML files there that are not retry policies are
  skipped with a note. A glob is expanded here; - reads standard input.
  --format text (default): each finding with its file:line:column, path and code.
  --format json: every finding with file, line, column, path, code and severity.
  --format github: workflow annotations, so findings show on the pull request's lines.
  Exits 1 on errors, and on warnings with --strict (acknowledged warnings are notes), and when
  an input holds no policy at all.`;

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
  if (format === 'github') {
    output.out(githubAnnotations(issues));
  } else {
    printIssues(output, issues);
  }
  const count = `${plural(policies.length, 'policy', 'policies')} in ${plural(loaded.files, 'file')}`;
  if (failed) {
    const strictOnly = values.strict && !hasErrors(issues) ? ' (--strict)' : '';
    output.err(`✖ ${count}: ${summary(issues)}${strictOnly}`);
    return EXIT.invalid;
  }
  output.out(`✔ ${count} valid (${summary(issues)})`);
  return EXIT.ok;
}
