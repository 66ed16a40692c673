import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

/**
 * Finding the Pulumi engine and running it. The e2e never downloads anything: it uses `pulumi`
 * from RETRY_TOPOLOGY_PULUMI (set by scripts/pulumi-e2e.sh), from PATH, or the one
 * scripts/pulumi-engine.sh built into its cache directory.
 */

/** The CLI version scripts/pulumi-engine.sh builds (and the @pulumi/pulumi the project pins). */
export const PULUMI_VERSION = '3.248.0';

export interface Engine {
  /** The pulumi executable. */
  pulumi: string;
  /** Where it was found. */
  source: 'RETRY_TOPOLOGY_PULUMI' | 'PATH' | 'cache';
  /**
   * The resource plugins the project needs sit next to it (a scripts/pulumi-engine.sh build): the
   * e2e installs them into a private PULUMI_HOME from there instead of letting Pulumi look them up.
   */
  pluginDir?: string;
}

/** The resource plugins the program loads, at the versions of the npm SDKs it imports. */
export function requiredPlugins(): Array<{ name: string; version: string }> {
  return ['rabbitmq', 'kafka'].map((name) => ({
    name,
    version: `v${(require(`@pulumi/${name}/package.json`) as { version: string }).version}`,
  }));
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function engineCacheBin(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.RETRY_TOPOLOGY_CACHE || join(homedir(), '.cache', 'retry-topology');
  return join(cache, `pulumi-${PULUMI_VERSION}`, 'bin');
}

function engineAt(pulumi: string, source: Engine['source']): Engine {
  const dir = dirname(pulumi);
  const local = requiredPlugins().every(({ name }) => isExecutable(join(dir, `pulumi-resource-${name}`)));
  return { pulumi, source, ...(local ? { pluginDir: dir } : {}) };
}

/** The engine to use, or why there is none (the places looked at). */
export function findEngine(env: NodeJS.ProcessEnv = process.env): Engine | { missing: string } {
  const explicit = env.RETRY_TOPOLOGY_PULUMI;
  if (explicit) {
    return isExecutable(explicit)
      ? engineAt(explicit, 'RETRY_TOPOLOGY_PULUMI')
      : { missing: `RETRY_TOPOLOGY_PULUMI=${explicit} is not an executable` };
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && isExecutable(join(dir, 'pulumi'))) return engineAt(join(dir, 'pulumi'), 'PATH');
  }
  // scripts/pulumi-engine.sh builds pulumi last, so its presence means the build finished.
  const cached = join(engineCacheBin(env), 'pulumi');
  if (isExecutable(cached)) return engineAt(cached, 'cache');
  return { missing: `no pulumi on PATH and none built in ${engineCacheBin(env)}` };
}

/** True when running under CI: there a missing engine is an error, not a skip. */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = (env.CI ?? '').toLowerCase();
  return value !== '' && value !== '0' && value !== 'false';
}

export interface RunResult {
  stdout: string;
  stderr: string;
  ms: number;
}

export class PulumiError extends Error {
  constructor(
    message: string,
    readonly result: RunResult & { code: number | string | null },
  ) {
    super(message);
    this.name = 'PulumiError';
  }
}

/** Runs pulumi and resolves with its output; rejects with the tail of both streams on failure. */
export function runPulumi(
  engine: Engine,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    execFile(
      engine.pulumi,
      [...args],
      // Engine events of a whole update are a few hundred kB of JSON.
      { cwd: options.cwd, env: options.env, timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const result = { stdout, stderr, ms: Date.now() - started };
        if (!error) return resolve(result);
        const code = error.killed ? `killed after ${options.timeoutMs} ms` : (error.code ?? null);
        const tail = (text: string) => text.slice(-6_000);
        reject(
          new PulumiError(
            `pulumi ${args.join(' ')} failed (${String(code)}) in ${options.cwd}\n` +
              `${errorDiagnostics(stdout) || tail(stdout)}\n--- stderr ---\n${tail(stderr)}`,
            { ...result, code },
          ),
        );
      },
    );
  });
}

/**
 * One engine event of `pulumi up|destroy --json`: after the preview's summary (one indented JSON
 * object), the update's events follow, one JSON object per line.
 */
export interface EngineEvent {
  resOutputsEvent?: { metadata: StepMetadata };
  resourcePreEvent?: { metadata: StepMetadata };
  summaryEvent?: { resourceChanges: Record<string, number>; result?: string };
  diagnosticEvent?: { severity: string; message: string; urn?: string };
}

export interface StepMetadata {
  op: string;
  type: string;
  urn: string;
  diffs?: string[];
}

export function parseEvents(stdout: string): EngineEvent[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{"'))
    .map((line) => JSON.parse(line) as EngineEvent);
}

/** The steps the engine finished (not the ones it only planned), with the logical name. */
export function completedSteps(events: readonly EngineEvent[]): Array<StepMetadata & { name: string }> {
  return events.flatMap((event) => {
    const step = event.resOutputsEvent?.metadata;
    return step ? [{ ...step, name: step.urn.split('::').pop() ?? step.urn }] : [];
  });
}

export function changeSummary(events: readonly EngineEvent[]): Record<string, number> {
  const summary = events.find((event) => event.summaryEvent)?.summaryEvent;
  if (!summary) throw new Error('the engine reported no summary event');
  return summary.resourceChanges;
}

/** The error diagnostics in a JSON event stream: what to show when a command fails. */
function errorDiagnostics(stdout: string): string {
  try {
    return parseEvents(stdout)
      .map((event) => event.diagnosticEvent)
      .filter((diag) => diag?.severity === 'error')
      .map((diag) => diag?.message.trim())
      .join('\n');
  } catch {
    return '';
  }
}
