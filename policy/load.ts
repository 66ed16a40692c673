import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Document, isAlias, LineCounter, parseAllDocuments, visit, type YAMLError } from 'yaml';
import { crossPolicyIssues, type Locator } from './cross-policy';
import { decodePolicyBytes } from './decode';
import { API_VERSION, type PolicyInput } from './input';
import { type Issue, issue, type SourceText } from './issues';
import type { LoadedPolicy } from './loaded';
import { locate } from './locate';
import { normalizePolicy } from './normalize';
import { RefusedPart, readParts } from './parts';
import { checkRules } from './rules';
import { type PolicyDocument, PolicySchema } from './schema';
import { schemaIssues } from './schema-issues';
import type { Policy } from './types';
import { unsupportedTags } from './yaml-tags';

export interface LoadResult {
  /** Policies that passed the schema (they may still carry rule errors in `issues`). */
  policies: LoadedPolicy[];
  /** Every finding, errors, warnings and notes, with file, line and column. */
  issues: Issue[];
}

/** One input of loadPolicyFiles: a path, or a named text (standard input, a git revision). */
export interface PolicyFile {
  /** The name findings carry. Read from disk when `content` is left out. */
  file: string;
  content?: Uint8Array | string;
  /**
   * Found by a directory or glob search rather than named: a YAML document that is not a retry
   * policy (no `kind: RetryPolicy`, no `apiVersion: retry-topology/…`) is skipped with a note
   * instead of failing, so a Pulumi.yaml or a Kubernetes manifest beside the policies is fine.
   * Named, such a document is one `no-policy` error.
   */
  found?: boolean;
}

/** A YAML alias bomb stops here instead of expanding without end. */
const MAX_ALIASES = 100;
/** A policy file is a few kilobytes; a thousand policies in one file are about one megabyte. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Past this many YAML errors in one file the rest say nothing new. */
const MAX_YAML_ERRORS = 10;

/**
 * Schema and rule checks for one document, as data; the object API and the loader share it.
 * A document the schema refuses gets no policy, but every rule that can run on the parts it
 * accepts still runs (parts.ts): a missing brokerVersion does not hide a retry window longer
 * than the deadline.
 */
export function checkDocument(input: unknown, written?: SourceText): { policy?: Policy; issues: Issue[] } {
  const parsed = PolicySchema.safeParse(input, { reportInput: true });
  if (parsed.success) {
    const policy = normalizePolicy(parsed.data);
    return { policy, issues: checkRules(policy) };
  }
  const refused = schemaIssues(parsed.error.issues, PolicySchema, input, written);
  let parts: PolicyDocument;
  try {
    parts = readParts(PolicySchema, input) as PolicyDocument;
  } catch (error) {
    if (error instanceof RefusedPart) return { issues: refused };
    throw error;
  }
  return { issues: [...refused, ...checkRules(normalizePolicy(parts, true), true)] };
}

/**
 * A document that means to be a retry policy, rightly or wrongly written: its kind is
 * RetryPolicy or its apiVersion is retry-topology/…, fields no other tool's YAML carries. It gets
 * every finding. Anything else (neither field, another tool's kind and apiVersion, a list, a
 * scalar) is not a policy at all.
 */
function claimsPolicy(input: unknown): boolean {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  const { kind, apiVersion } = input as Record<string, unknown>;
  return (
    kind === 'RetryPolicy' || (typeof apiVersion === 'string' && apiVersion.startsWith('retry-topology/'))
  );
}

/** The same test on text YAML could not parse: a broken policy still says what it is. */
const CLAIMS_POLICY_TEXT = /^\s*(kind:\s*["']?RetryPolicy\b|apiVersion:\s*["']?retry-topology\/)/m;

function skipped(file: string, line: number, what: string): Issue {
  return {
    ...issue(
      'not-a-policy',
      [],
      `skipped: ${what}, not a retry policy (no kind: RetryPolicy, no apiVersion: ${API_VERSION})`,
    ),
    file,
    line,
    column: 1,
  };
}

/**
 * A named file's document that does not claim to be a policy: one finding, not the schema's
 * list of every key it lacks and every key it has, which would read as a badly broken policy
 * when the command was simply pointed at the wrong file (a Pulumi.yaml, a stack file).
 */
function notPolicy(file: string, line: number, what: string): Issue {
  return {
    ...issue(
      'no-policy',
      [],
      `${what} is not a retry policy (no kind: RetryPolicy, no apiVersion: ${API_VERSION}): name policy files only, or add those two lines if it is one`,
    ),
    file,
    line,
    column: 1,
  };
}

/** Where an alias that names no earlier anchor is (an anchor never crosses "---"). */
function unresolvedAlias(document: Document, lines: LineCounter): { line: number; col: number } | undefined {
  let at: number | undefined;
  visit(document, {
    Alias(_key, node) {
      if (isAlias(node) && node.resolve(document) === undefined) {
        at = node.range?.[0];
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return at === undefined ? undefined : lines.linePos(at);
}

interface Parsed extends LoadResult {
  locators: Map<LoadedPolicy, Locator>;
}

/** One YAML document of a file, with how to find a path in it. */
interface SourceDocument {
  value: unknown;
  /** Line of the document's first node. */
  line: number;
  /** Where a path is while the file's own findings are placed. */
  locator: Locator;
  /** Where a path is later, for the checks across policies (locatorReadAgain). */
  later: Locator;
  /** Findings in how the document is written (its YAML tags), reported if it is a policy. */
  written?: Issue[];
}

/** Schema and rules for one document, its findings located in the file. */
function addDocument(result: Parsed, document: SourceDocument, file: string, found: boolean, many: boolean) {
  const { value: input, line: start, locator } = document;
  if (!claimsPolicy(input)) {
    result.issues.push(
      found
        ? skipped(file, start, many ? 'a YAML document' : 'a YAML file')
        : notPolicy(file, start, many ? 'this YAML document' : 'this YAML file'),
    );
    return;
  }
  const checked = checkDocument(input, (path) => locator(path)?.source);
  for (const finding of [...(document.written ?? []), ...checked.issues]) {
    const position = locator(finding.path, finding.code === 'unknown-key' ? 'key' : 'value');
    result.issues.push({
      ...finding,
      file,
      ...(position ? { line: position.line, column: position.column } : { line: start, column: 1 }),
    });
  }
  if (checked.policy) {
    const loaded = { policy: checked.policy, file, line: start };
    result.policies.push(loaded);
    result.locators.set(loaded, document.later);
  }
}

/** A file that holds no document, or only ones that were neither policies nor findings. */
function noPolicy(result: Parsed, file: string, documents: number): void {
  if (documents === 0 || (result.policies.length === 0 && result.issues.length === 0)) {
    result.issues.push({
      ...issue('no-policy', [], 'expected at least one policy document, got none'),
      file,
      line: 1,
      column: 1,
    });
  }
}

/** The first line of a YAML error, in this tool's words where the library's name its options. */
function yamlMessage(error: YAMLError): string {
  if (error.code === 'NON_STRING_KEY') return 'a key must be text, not a list, a mapping or a tagged value';
  return error.message.split('\n')[0] ?? 'invalid YAML';
}

/** The YAML documents of a text, with every node's position counted in `lines`. */
function readYaml(text: string, lines: LineCounter): Document.Parsed[] {
  // stringKeys: every key is the text it is written as. Read as YAML values, `123:` and `true:`
  // became keys no node matches, so findings fell back to the parent's line, and `null:` became
  // the key "".
  const documents = parseAllDocuments(text, {
    lineCounter: lines,
    prettyErrors: false,
    uniqueKeys: true,
    stringKeys: true,
  });
  return Array.isArray(documents) ? documents : [];
}

/**
 * Where a path of a file's document is, for the checks across policies, which run after every
 * file is read and find something only when two policies clash. The syntax tree is read again
 * from the text when that happens instead of being kept: a thousand trees held to the end made
 * the garbage collector copy them from one generation to the next, for positions almost never
 * asked for.
 */
function locatorReadAgain(text: string, index: number): Locator {
  let read: { document: Document | undefined; lines: LineCounter } | undefined;
  return (path, at = 'value') => {
    if (!read) {
      const lines = new LineCounter();
      read = { document: readYaml(text, lines)[index], lines };
    }
    return read.document && locate(read.document, read.lines, path, at);
  };
}

/**
 * One file's text, read with the `yaml` library: every YAML error with its position, aliases,
 * tags, one policy per document.
 */
function parseText(text: string, file: string, found: boolean): Parsed {
  const lines = new LineCounter();
  const list = readYaml(text, lines);
  const result: Parsed = { policies: [], issues: [], locators: new Map() };
  // Tags all start with "!": a file without one has none to look for.
  const mayHaveTags = text.includes('!');
  let yamlErrors = 0;
  for (const [index, document] of list.entries()) {
    const start = lines.linePos(document.contents?.range?.[0] ?? document.range[0]).line;
    if (document.errors.length > 0) {
      if (found && !CLAIMS_POLICY_TEXT.test(text)) {
        result.issues.push(skipped(file, start, 'YAML this tool cannot read'));
        continue;
      }
      for (const error of document.errors) {
        yamlErrors++;
        if (yamlErrors > MAX_YAML_ERRORS) continue;
        const at = lines.linePos(error.pos[0]);
        result.issues.push({
          ...issue('yaml-syntax', [], yamlMessage(error)),
          file,
          line: at.line,
          column: at.col,
        });
      }
      continue;
    }
    if (document.contents === null) continue;
    let input: unknown;
    try {
      input = document.toJS({ maxAliasCount: MAX_ALIASES });
    } catch (error) {
      const at = unresolvedAlias(document, lines) ?? { line: start, col: 1 };
      result.issues.push({
        ...issue('yaml-syntax', [], (error as Error).message),
        file,
        line: at.line,
        column: at.col,
      });
      continue;
    }
    const locator: Locator = (path, at = 'value') => locate(document, lines, path, at);
    const later = locatorReadAgain(text, index);
    const written = mayHaveTags ? unsupportedTags(document) : undefined;
    addDocument(result, { value: input, line: start, locator, later, written }, file, found, list.length > 1);
  }
  if (yamlErrors > MAX_YAML_ERRORS) {
    result.issues.push({
      ...issue('yaml-syntax', [], `${yamlErrors - MAX_YAML_ERRORS} more YAML errors in this file not shown`),
      file,
      line: lines.linePos(text.length).line,
      column: 1,
    });
  }
  noPolicy(result, file, list.length);
  return result;
}

/** Parses one file's text: one policy per YAML document ("---" separates them). */
export function loadPolicyText(
  text: string,
  file = '<input>',
  options: { found?: boolean } = {},
): LoadResult {
  const { policies, issues, locators } = parseText(text, file, options.found ?? false);
  issues.push(...crossPolicyIssues(policies, locators));
  return { policies, issues };
}

/**
 * Sizes in exact bytes: rounded to a tenth of a MiB, a file one byte over the limit read "the file
 * is 4.0 MiB; a policy file is at most 4 MiB".
 */
function tooLarge(what: 'file' | 'input', size: number): string {
  const bytes = (count: number) => `${String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ',')} bytes`;
  return `the ${what} is ${bytes(size)}, over the ${bytes(MAX_FILE_BYTES)} (${MAX_FILE_BYTES / 1024 / 1024} MiB) a policy file may have`;
}

/**
 * The file's bytes, refused early when it is too large to be a policy file. Read synchronously:
 * policy files are small and in the page cache after a checkout, and a thousand synchronous
 * reads take tens of milliseconds where a thousand awaited ones spend most of a second going
 * back and forth to the thread pool.
 */
function readBytes(file: string): Uint8Array | Issue {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(file, 'r');
    const { size } = fstatSync(descriptor);
    if (size > MAX_FILE_BYTES) {
      return { ...issue('file-too-large', [], tooLarge('file', size)), file, line: 1, column: 1 };
    }
    return readFileSync(descriptor);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return { ...issue('file-unreadable', [], `cannot read the file (${reason})`), file };
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

function parseFile(input: PolicyFile, bytes: Uint8Array | string | Issue): Parsed {
  const empty = (issues: Issue[]): Parsed => ({ policies: [], issues, locators: new Map() });
  if (typeof bytes === 'object' && !(bytes instanceof Uint8Array)) return empty([bytes]);
  if (typeof bytes !== 'string' && bytes.byteLength > MAX_FILE_BYTES)
    return empty([
      {
        ...issue('file-too-large', [], tooLarge('input', bytes.byteLength)),
        file: input.file,
      },
    ]);
  const decoded = typeof bytes === 'string' ? { text: bytes } : decodePolicyBytes(bytes, input.file);
  if ('issue' in decoded) return empty([decoded.issue]);
  return parseText(decoded.text, input.file, input.found ?? false);
}

/**
 * Loads files; then checks what no single policy can: a policy name used
 * twice, and broker entities two policies would both own (cross-policy.ts). A file named twice
 * is read once.
 */
export async function loadPolicyFiles(files: ReadonlyArray<string | PolicyFile>): Promise<LoadResult> {
  const seen = new Set<string>();
  const inputs: PolicyFile[] = [];
  for (const each of files) {
    const input = typeof each === 'string' ? { file: each } : each;
    const key = input.content === undefined ? resolve(input.file) : `\u0000${input.file}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inputs.push(input);
  }
  const parsed = inputs.map((input) => parseFile(input, input.content ?? readBytes(input.file)));
  const result: LoadResult = { policies: [], issues: [] };
  const locators = new Map<LoadedPolicy, Locator>();
  for (const each of parsed) {
    result.policies.push(...each.policies);
    result.issues.push(...each.issues);
    for (const [loaded, locator] of each.locators) locators.set(loaded, locator);
  }
  result.issues.push(...crossPolicyIssues(result.policies, locators));
  return result;
}

/** For TypeScript authors: typed like a YAML policy, checked like one. */
export function definePolicy(input: PolicyInput): PolicyInput {
  return input;
}
