import { parentPort, workerData } from 'node:worker_threads';
import { type PolicyFile, readPolicyFile } from '../policy/load';

/**
 * The worker thread of load-parallel.ts: reads and checks the files it is given and posts back
 * each file's policies and findings, in order. Locators (closures over the parsed YAML) cannot
 * cross threads; the main thread reads a file again in the rare case it needs one.
 */
const files = workerData as PolicyFile[];
parentPort?.postMessage(
  files.map((file) => {
    const { policies, issues } = readPolicyFile(file);
    return { policies, issues };
  }),
);
