import { formatIssue, type Issue, sortIssues } from '../policy';
import { printable } from '../policy/printable';

/** The CLI's one place for reading input and writing; tests pass their own instead of the process's. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
  /** Standard input, for the `-` input. */
  stdin?(): Promise<Uint8Array>;
}

async function readProcessStdin(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Standard streams whose reader has gone (EPIPE): nothing more is written to them. */
const closedPipes = new Set<NodeJS.WriteStream>();

function writeLine(stream: NodeJS.WriteStream, text: string): void {
  if (!closedPipes.has(stream)) stream.write(text.endsWith('\n') ? text : `${text}\n`);
}

/**
 * A reader that stops early (`| head`, a pager that quits) closes the pipe, and the next write
 * fails with EPIPE; unheard, that error ends the process with a stack trace. git and grep stop
 * quietly there (killed by SIGPIPE, which Node ignores), and so does this: no message, nothing
 * more written to that stream, and the exit status the command itself returns. Not 141: a
 * `set -o pipefail` script that reads the head of a valid plan has nothing to fail on. Not
 * always 0 either: a check that failed (validate --strict, diff with new errors) still exits 1,
 * however little of its output was read. Any other write error stays an error.
 */
export function quietOnClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      closedPipes.add(stream);
    });
  }
}

export const processOutput: Output = {
  out: (text) => writeLine(process.stdout, text),
  err: (text) => writeLine(process.stderr, text),
  stdin: readProcessStdin,
};

/**
 * Every byte the CLI writes passes here: a control character that slipped through a formatter
 * (an ESC from a policy value, a bidi override) is written as an escape, never raw. Our own
 * output uses only "\n" among them. JSON output is already escaped the same way (safeJson).
 */
export function safeOutput(output: Output): Output {
  return {
    out: (text) => output.out(printable(text, '\n')),
    err: (text) => output.err(printable(text, '\n')),
    ...(output.stdin ? { stdin: output.stdin.bind(output) } : {}),
  };
}

const MARK = { error: '✖', warning: '⚠', note: 'ℹ' } as const;

/** One write for all findings: a thousand writes to a pipe cost more than the text. */
/** Findings, one a line, most severe first. */
export function issueLines(issues: readonly Issue[]): string[] {
  return sortIssues(issues).map((found) => `${MARK[found.severity]} ${formatIssue(found)}`);
}

/** Findings on stderr, beside a command's own output (a plan, a diff). */
export function printIssues(output: Output, issues: readonly Issue[]): void {
  if (issues.length === 0) return;
  output.err(issueLines(issues).join('\n'));
}

/**
 * 1234567 as "1,234,567". Not toLocaleString: its first call loads the locale data, which costs
 * a short-lived CLI process tens of milliseconds for one comma.
 */
export const grouped = (count: number) => String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

export const plural = (count: number, word: string, words = `${word}s`) =>
  `${grouped(count)} ${count === 1 ? word : words}`;

export function summary(issues: readonly Issue[]): string {
  const count = (severity: Issue['severity']) => issues.filter((found) => found.severity === severity).length;
  const notes = count('note');
  return [
    plural(count('error'), 'error'),
    plural(count('warning'), 'warning'),
    ...(notes ? [plural(notes, 'note')] : []),
  ].join(', ');
}

/** Exit codes: 0 fine, 1 the policy has errors, 2 the command line is wrong, 3 a bug of ours. */
export const EXIT = { ok: 0, invalid: 1, usage: 2, internal: 3 } as const;
