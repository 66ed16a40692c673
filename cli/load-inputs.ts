import { type LoadResult, loadPolicyFiles } from '../policy';
import { emptySearches, expandInputs } from './inputs';
import type { Output } from './output';

export interface Loaded extends LoadResult {
  /** How many files were read. */
  files: number;
}

/** Expands the command line's inputs and loads them: every command reads policies this way. */
export async function loadInputs(inputs: readonly string[], output: Output): Promise<Loaded> {
  const expanded = await expandInputs(inputs, output.stdin?.bind(output));
  const loaded = await loadPolicyFiles(expanded.files);
  return {
    policies: loaded.policies,
    issues: [...expanded.issues, ...loaded.issues, ...emptySearches(expanded, loaded)],
    files: expanded.files.length,
  };
}
