import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Locator } from '../policy/cross-policy';
import {
  combineParsed,
  distinctInputs,
  type LoadedPolicy,
  type LoadResult,
  type Parsed,
  type PolicyFile,
  readPolicyFile,
} from '../policy/load';

/**
 * loadPolicyFiles for the CLI, on two threads when there are many files: `validate` of a
 * thousand policies is CPU-bound (YAML, schema, rules, once per file in code that never warms
 * up), and CI machines have two cores or more. The main thread takes the first part of the
 * files, a worker the rest; the results are put back in file order, so the findings are the same
 * as on one thread, byte for byte. A worker costs a second module load (~0.1 s of CPU), so fewer
 * files stay on one thread; so does a run from the TypeScript sources, which has no worker script.
 */

const MIN_FILES = 200;
/** The worker starts later (its own module load), so it takes a little less than half. */
const WORKER_SHARE = 0.45;
const WORKER_SCRIPT = join(__dirname, 'load-worker.js');

type Posted = Array<Pick<Parsed, 'policies' | 'issues'>>;

export async function loadPolicyFilesInParallel(files: ReadonlyArray<PolicyFile>): Promise<LoadResult> {
  const inputs = distinctInputs(files);
  if (inputs.length < MIN_FILES || availableParallelism() < 2 || !__filename.endsWith('.js'))
    return combineParsed(inputs.map(readPolicyFile));
  const split = inputs.length - Math.floor(inputs.length * WORKER_SHARE);
  const mine = inputs.slice(0, split);
  const theirs = inputs.slice(split);
  const worker = new Worker(WORKER_SCRIPT, { workerData: theirs });
  const posted = new Promise<Posted>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the worker exited with code ${code}`)));
  });
  const parsed = mine.map(readPolicyFile);
  // A worker that could not start or failed leaves its files to this thread: nothing is skipped.
  const fromWorker = await posted.then(
    (results) => results.map((result, index) => withLocators(result, theirs[index] as PolicyFile)),
    () => theirs.map(readPolicyFile),
  );
  void worker.terminate();
  return combineParsed([...parsed, ...fromWorker]);
}

/**
 * A worker's result with locators that read the file again on this thread when first asked:
 * only a cross-policy finding asks, so a clean run never does.
 */
function withLocators(result: Pick<Parsed, 'policies' | 'issues'>, input: PolicyFile): Parsed {
  let again: LoadedPolicy[] | undefined;
  let againLocators: Parsed['locators'] | undefined;
  const locators = new Map<LoadedPolicy, Locator>();
  result.policies.forEach((loaded, index) => {
    locators.set(loaded, (path, at) => {
      if (!again) ({ policies: again, locators: againLocators } = readPolicyFile(input));
      const same = again[index];
      return same ? againLocators?.get(same)?.(path, at) : undefined;
    });
  });
  return { ...result, locators };
}
