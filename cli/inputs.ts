import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';
import type { Issue, LoadResult, PolicyFile } from '../policy';
import { compareText } from '../policy/issues';

/**
 * What the command line names, as policy files:
 * - a file: checked as a policy, whatever its name;
 * - a directory: every .yaml and .yml file in it and below it (any case), skipping node_modules
 *   and hidden directories; YAML files there that are not policies are skipped with a note;
 * - a glob (`policies/**\/*.yaml`), expanded here so it works where no shell expands it (npm
 *   scripts on Windows, CI steps that quote their arguments); matches are treated like a
 *   directory's files;
 * - `-`: standard input, named `<stdin>` in findings.
 * An input that yields nothing to check is an error (no-policy-files): a CI job pointed at the
 * wrong path must not pass having checked nothing.
 */

export const STDIN = '-';
export const STDIN_NAME = '<stdin>';

export interface Expanded {
  files: PolicyFile[];
  /** Inputs that found no file at all. */
  issues: Issue[];
  /** For each input that searched (directory or glob), the files it found. */
  searched: Array<{ input: string; files: string[] }>;
}

const POLICY_FILES = '**/*.{yaml,yml}';
const IGNORED = ['**/node_modules/**'];

function nothing(input: string, why: string): Issue {
  return {
    code: 'no-policy-files',
    severity: 'error',
    path: [],
    message: `no policy files here: ${why}`,
    file: input,
  };
}

const sorted = (paths: string[]) => [...paths].sort(compareText);

export async function expandInputs(
  inputs: readonly string[],
  readStdin?: () => Promise<Uint8Array>,
): Promise<Expanded> {
  const out: Expanded = { files: [], issues: [], searched: [] };
  const seen = new Set<string>();
  const add = (file: PolicyFile) => {
    // A file named twice, or found by two inputs, is read once.
    const key = file.content === undefined ? resolve(file.file) : file.file;
    if (seen.has(key)) return;
    seen.add(key);
    out.files.push(file);
  };
  for (const input of inputs) {
    if (input === STDIN) {
      if (seen.has(STDIN_NAME)) continue;
      add({ file: STDIN_NAME, content: readStdin ? await readStdin() : new Uint8Array() });
      continue;
    }
    const info = await stat(input).catch(() => undefined);
    if (info?.isDirectory()) {
      const found = sorted(
        await glob(POLICY_FILES, {
          cwd: input,
          caseSensitiveMatch: false,
          ignore: IGNORED,
          onlyFiles: true,
          followSymbolicLinks: false,
        }),
      ).map((relative) => join(input, relative));
      out.searched.push({ input, files: found });
      if (found.length === 0) out.issues.push(nothing(input, 'no .yaml or .yml file in it or below it'));
      for (const file of found) add({ file, found: true });
    } else if (!info && isDynamicPattern(input)) {
      const found = sorted(
        await glob(input, {
          ignore: IGNORED,
          onlyFiles: true,
          expandDirectories: false,
          followSymbolicLinks: false,
        }),
      );
      out.searched.push({ input, files: found });
      if (found.length === 0) out.issues.push(nothing(input, 'the pattern matches no file'));
      for (const file of found) add({ file, found: true });
    } else {
      // A missing file is reported by the loader, with its name, like any unreadable one.
      add({ file: input });
    }
  }
  return out;
}

/**
 * A directory or glob whose files were all skipped (not policies) checked nothing either. Run
 * after loading, when it is known which files held policies.
 */
export function emptySearches(expanded: Expanded, loaded: LoadResult): Issue[] {
  const withPolicies = new Set(loaded.policies.map((each) => each.file));
  const withErrors = new Set(
    loaded.issues.filter((found) => found.severity === 'error').map((found) => found.file),
  );
  return expanded.searched
    .filter(
      ({ files }) =>
        files.length > 0 && !files.some((file) => withPolicies.has(file) || withErrors.has(file)),
    )
    .map(({ input, files }) =>
      nothing(
        input,
        `${files.length} YAML file${files.length === 1 ? '' : 's'} found, none of them a retry policy (each is listed as not-a-policy)`,
      ),
    );
}
