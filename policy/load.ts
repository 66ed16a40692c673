import { readFile } from 'node:fs/promises';
import { type Document, LineCounter, parseAllDocuments } from 'yaml';
import type { PolicyInput } from './input';
import { type Issue, issue, type SourceText } from './issues';
import { locate } from './locate';
import { normalizePolicy } from './normalize';
import { checkRules } from './rules';
import { PolicySchema } from './schema';
import { schemaIssues } from './schema-issues';
import type { Policy } from './types';

export interface LoadedPolicy {
  policy: Policy;
  file: string;
  /** Line of the document's start in its file. */
  line: number;
}

export interface LoadResult {
  /** Policies that passed the schema (they may still carry rule errors in `issues`). */
  policies: LoadedPolicy[];
  /** Every finding, errors and warnings, with file, line and column. */
  issues: Issue[];
}

/** A YAML alias bomb stops here instead of expanding without end. */
const MAX_ALIASES = 100;

/** Schema and rule checks for one document, as data; the object API and the loader share it. */
export function checkDocument(input: unknown, written?: SourceText): { policy?: Policy; issues: Issue[] } {
  const parsed = PolicySchema.safeParse(input, { reportInput: true });
  if (!parsed.success) return { issues: schemaIssues(parsed.error.issues, PolicySchema, input, written) };
  const policy = normalizePolicy(parsed.data);
  return { policy, issues: checkRules(policy) };
}

function positioned(found: Issue, document: Document, lines: LineCounter, file: string): Issue {
  const position = locate(document, lines, found.path, found.code === 'unknown-key' ? 'key' : 'value');
  return { ...found, file, ...(position ? { line: position.line, column: position.column } : {}) };
}

/** Parses one file's text: one policy per YAML document ("---" separates them). */
export function loadPolicyText(text: string, file = '<input>'): LoadResult {
  const lines = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const result: LoadResult = { policies: [], issues: [] };
  const list = Array.isArray(documents) ? documents : [];
  for (const document of list) {
    if (document.errors.length > 0) {
      for (const error of document.errors) {
        const at = lines.linePos(error.pos[0]);
        result.issues.push({
          ...issue('yaml-syntax', [], error.message.split('\n')[0] ?? 'invalid YAML'),
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
      result.issues.push({ ...issue('yaml-syntax', [], (error as Error).message), file });
      continue;
    }
    const start = lines.linePos(document.contents.range?.[0] ?? 0).line;
    const checked = checkDocument(input, (path) => locate(document, lines, path, 'value')?.source);
    result.issues.push(...checked.issues.map((found) => positioned(found, document, lines, file)));
    if (checked.policy) result.policies.push({ policy: checked.policy, file, line: start });
  }
  if (list.length === 0 || (result.policies.length === 0 && result.issues.length === 0)) {
    result.issues.push({
      ...issue('no-policy', [], 'expected at least one policy document, got none'),
      file,
      line: 1,
      column: 1,
    });
  }
  return result;
}

/** Loads files; also reports a policy name used twice across all of them. */
export async function loadPolicyFiles(files: readonly string[]): Promise<LoadResult> {
  const result: LoadResult = { policies: [], issues: [] };
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      result.issues.push({ ...issue('file-unreadable', [], `cannot read the file (${reason})`), file });
      continue;
    }
    const loaded = loadPolicyText(text, file);
    result.policies.push(...loaded.policies);
    result.issues.push(...loaded.issues);
  }
  const firstSeen = new Map<string, LoadedPolicy>();
  for (const loaded of result.policies) {
    const earlier = firstSeen.get(loaded.policy.name);
    if (!earlier) {
      firstSeen.set(loaded.policy.name, loaded);
      continue;
    }
    result.issues.push({
      ...issue(
        'duplicate-policy-name',
        ['metadata', 'name'],
        `policy "${loaded.policy.name}" is already defined at ${earlier.file}:${earlier.line}`,
      ),
      file: loaded.file,
      line: loaded.line,
      column: 1,
      policy: loaded.policy.name,
    });
  }
  return result;
}

/** For TypeScript authors: typed like a YAML policy, checked like one. */
export function definePolicy(input: PolicyInput): PolicyInput {
  return input;
}
