import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import {
  BUNDLER_OPTIONS,
  entryPoints,
  TEMPLATE_NODE10_OPTIONS,
  TEMPLATE_OPTIONS,
  writeTsconfig,
} from './consumer-project';
import { allSnippets, type Snippet } from './snippets';

/**
 * What a team's own compiler says, in a project made like `pulumi new typescript` (its tsconfig:
 * no esModuleInterop, no skipLibCheck, so every declaration file reached is checked) with the
 * packed package and the peers installed:
 * - every entry point's declarations, under the template's nodenext, the earlier template's
 *   `moduleResolution: node`, and `bundler`;
 * - every TypeScript snippet of README.md and docs/, each a file of its own, under the template's
 *   tsconfig. Errors are reported at their line in the Markdown file. A snippet marked partial
 *   (snippets.ts) is listed by name as not compiled.
 * One compiler run per tsconfig, the three at once; then the same on TypeScript 6 (what
 * `npm install typescript` gave a new project through 2026), which no longer loads @types/node
 * unless the tsconfig lists it: the package's declarations must compile with no extra setting.
 */
const ROOT = resolve(__dirname, '..', '..');
const project = inject('consumer');
const entries = entryPoints(project);
const snippets = allSnippets(ROOT);
const compiled = snippets.filter((snippet) => !snippet.partial);
const partial = snippets.filter((snippet) => snippet.partial);

/**
 * @azure/service-bus 7.9.5's own declarations `import Long from 'long'`, which needs
 * esModuleInterop under `moduleResolution: node`: not ours to fix, and a team on that tsconfig has
 * the error as soon as it imports the SDK itself. The test below checks it is still so.
 */
const NODE10_SKIPS = ['retry-topology/runtime/servicebus'];

/** Every entry point's declarations loaded and checked, and the object API used as documented. */
function entriesProgram(skip: string[]): string {
  const used = entries.filter((entry) => !skip.includes(entry));
  return [
    ...used.map((entry, index) => `import * as entry${index} from '${entry}';`),
    "import { definePolicy, derivePlan, parsePolicy, type PolicyInput, type RetryPlan } from 'retry-topology';",
    'const input: PolicyInput = definePolicy({',
    "  apiVersion: 'retry-topology/v1',",
    "  kind: 'RetryPolicy',",
    "  metadata: { name: 'billing.order-placed' },",
    '  spec: {',
    "    consumer: 'billing', maxAttempts: 3, backoff: { type: 'list', delays: ['1s', '5s'] },",
    "    classify: { presets: ['http-transient'] }, idempotency: { idempotent: true },",
    "    targets: { kafka: { topic: 'orders', consumerGroup: 'billing', partitions: 3 } },",
    '  },',
    '});',
    'const plan: RetryPlan = derivePlan(parsePolicy(input));',
    'export const group: string | undefined = plan.targets.kafka?.consumerGroup;',
    `export const all = [${used.map((_, index) => `entry${index}`).join(', ')}];`,
    '',
  ].join('\n');
}

/** A file of its own per snippet: a snippet without import or export is a module all the same. */
function sourceOf(snippet: Snippet): string {
  return /^(import|export)\s/m.test(snippet.code) ? `${snippet.code}\n` : `${snippet.code}\nexport {};\n`;
}

/** Diagnostics by file (as tsc names it), continuation lines kept with their message. */
function byFile(output: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  let last: string[] = [];
  for (const line of output.split('\n')) {
    if (line.trim() === '') continue;
    if (/^\s/.test(line)) {
      last.push(line);
      continue;
    }
    const file = /^(.+?)\(\d+,\d+\): /.exec(line)?.[1] ?? '(tsc)';
    last = found.get(file) ?? [];
    found.set(file, last);
    last.push(line);
  }
  return found;
}

const run = promisify(execFile);

/** TypeScript 6, installed beside the project (its own copy of typescript is 5.x). */
const TS6 = '6.0.3';
const ts6Dir = join(project, 'ts6');

async function tsc(config: string, root = project): Promise<Map<string, string[]>> {
  const binary = join(root, 'node_modules', '.bin', 'tsc');
  const result = await run(binary, ['--noEmit', '--pretty', 'false', '-p', config], {
    cwd: project,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return byFile(result.stdout);
}

const results = {} as Record<'nodenext' | 'bundler' | 'node10' | 'ts6' | 'ts6node10', Map<string, string[]>>;
/** TypeScript 6, each entry point in a program of its own: nothing else may bring in Node's types. */
const alone = new Map<string, string[]>();
const snippetFiles = new Map<string, string>();

beforeAll(async () => {
  mkdirSync(join(project, 'snippets'), { recursive: true });
  for (const [index, snippet] of compiled.entries()) {
    const file = `snippets/s${String(index + 1).padStart(2, '0')}.ts`;
    writeFileSync(join(project, file), sourceOf(snippet));
    snippetFiles.set(snippet.name, file);
  }
  writeFileSync(join(project, 'entries.ts'), entriesProgram([]));
  writeFileSync(join(project, 'entries.node10.ts'), entriesProgram(NODE10_SKIPS));
  writeFileSync(join(project, 'servicebus-only.ts'), "export * from '@azure/service-bus';\n");
  const configs = {
    nodenext: writeTsconfig(project, 'tsconfig.nodenext.json', TEMPLATE_OPTIONS, [
      'entries.ts',
      ...snippetFiles.values(),
    ]),
    bundler: writeTsconfig(project, 'tsconfig.bundler.json', BUNDLER_OPTIONS, ['entries.ts']),
    node10: writeTsconfig(project, 'tsconfig.node10.json', TEMPLATE_NODE10_OPTIONS, [
      'entries.node10.ts',
      'servicebus-only.ts',
    ]),
  };
  // TypeScript 6 refuses `moduleResolution: node` (TS5107) until told to ignore it, as
  // docs/troubleshooting.md says; nothing else is added to either template.
  const ts6Configs = {
    nodenext: writeTsconfig(project, 'tsconfig.ts6.json', TEMPLATE_OPTIONS, [
      'entries.ts',
      ...snippetFiles.values(),
    ]),
    node10: writeTsconfig(
      project,
      'tsconfig.ts6.node10.json',
      { ...TEMPLATE_NODE10_OPTIONS, ignoreDeprecations: '6.0' },
      ['entries.node10.ts', 'servicebus-only.ts'],
    ),
  };
  mkdirSync(ts6Dir, { recursive: true });
  await run(
    'npm',
    ['install', '--prefix', ts6Dir, '--prefer-offline', '--no-audit', '--no-fund', `typescript@${TS6}`],
    { cwd: ts6Dir },
  );
  const [nodenext, bundler, node10, ts6, ts6node10] = await Promise.all([
    tsc(configs.nodenext),
    tsc(configs.bundler),
    tsc(configs.node10),
    tsc(ts6Configs.nodenext, ts6Dir),
    tsc(ts6Configs.node10, ts6Dir),
  ]);
  Object.assign(results, { nodenext, bundler, node10, ts6, ts6node10 });
  for (const [index, entry] of entries.entries()) {
    const file = `alone${index}.ts`;
    writeFileSync(join(project, file), `import * as entry from '${entry}';\nexport const all = [entry];\n`);
    const config = writeTsconfig(project, `tsconfig.alone${index}.json`, TEMPLATE_OPTIONS, [file]);
    alone.set(entry, [...(await tsc(config, ts6Dir)).values()].flat());
  }
  if (partial.length > 0)
    console.info(
      `Snippets not compiled, marked partial:\n${partial.map((snippet) => `  ${snippet.name} (${snippet.file}:${snippet.line}): ${snippet.partial}`).join('\n')}`,
    );
});

/**
 * @azure/service-bus at its peer floor (7.5.0) brings rhea-promise 2.x, whose typings declare a
 * namespace with `module`, an error since TypeScript 6 (TS1540). Not ours to fix: 7.9.5 (rhea-promise
 * 3) is clean; docs/troubleshooting.md says so. Nothing else outside this package is let through.
 */
const peerFloorError = (line: string) => /^node_modules\/rhea-promise\/.*error TS1540/.test(line);
const ts6Errors = (lines: string[]) => lines.filter((line) => !peerFloorError(line));

/** @azure/service-bus's own declarations need esModuleInterop under `moduleResolution: node`. */
const sdkErrorLine = (line: string) => /^node_modules\/@azure\/service-bus\/.*error TS1259/.test(line);

/** Everything but the files a test looks at on its own: nothing at all is expected there. */
function rest(found: Map<string, string[]>, mine: string[]): string[] {
  return [...found].filter(([file]) => !mine.includes(file)).flatMap(([, lines]) => lines);
}

describe("the public types, under the project's own compiler", () => {
  it('compile with the `pulumi new typescript` tsconfig (nodenext)', () => {
    expect(results.nodenext.get('entries.ts') ?? []).toEqual([]);
    expect(rest(results.nodenext, ['entries.ts', ...snippetFiles.values()])).toEqual([]);
  });

  it('compile with moduleResolution bundler', () => {
    expect([...results.bundler.values()].flat()).toEqual([]);
  });

  // One run holds both files; the SDK's error is in its own declarations, whoever imports it.
  const sdkError = sdkErrorLine;

  it(`compile with the earlier template (commonjs, moduleResolution node), all but ${NODE10_SKIPS.join(', ')}`, () => {
    const errors = [...results.node10.values()].flat().filter((line) => !/^\s/.test(line));
    expect(errors.filter((line) => !sdkError(line))).toEqual([]);
  });

  it("leave out of the node10 check only what @azure/service-bus's own declarations break", () => {
    expect([...results.node10.values()].flat().filter(sdkError).length).toBeGreaterThan(0);
  });
});

describe(`the public types and the snippets on TypeScript ${TS6}, with no setting added`, () => {
  // Reported whole: a failure names the file (a snippet's is snippets/sNN.ts) and the error.
  it('compile under the `pulumi new typescript` tsconfig (nodenext), which lists no "types"', () => {
    expect(ts6Errors([...results.ts6.values()].flat())).toEqual([]);
  });

  it('compile each entry point on its own, in a program that loads nothing else (no @types/node unless the package references it)', () => {
    expect(alone.size).toBe(entries.length);
    expect(Object.fromEntries([...alone].filter(([, errors]) => ts6Errors(errors).length > 0))).toEqual({});
  });

  it('compile under the earlier template with ignoreDeprecations "6.0", all but @azure/service-bus\'s own error', () => {
    const errors = [...results.ts6node10.values()].flat().filter((line) => !/^\s/.test(line));
    expect(ts6Errors(errors.filter((line) => !sdkErrorLine(line)))).toEqual([]);
  });
});

describe('the documentation snippets', () => {
  it('are found: README.md and docs/ hold TypeScript snippets', () => {
    expect(compiled.length).toBeGreaterThanOrEqual(8);
  });

  it.each(compiled.map((snippet) => [snippet.name, snippet] as const))('%s compiles', (_name, snippet) => {
    const file = snippetFiles.get(snippet.name) ?? '';
    // Reported at the line in the Markdown file.
    const errors = (results.nodenext.get(file) ?? []).map((line) =>
      line.replace(/^snippets\/s\d+\.ts\((\d+),(\d+)\)/, (_all, row: string, column: string) => {
        return `${snippet.file}:${snippet.line + Number(row) - 1}:${column}`;
      }),
    );
    expect(errors).toEqual([]);
  });

  // Listed by name so a partial snippet is never dropped without a trace.
  it.skip.each(partial.map((snippet) => [snippet.name, snippet.partial] as const))(
    '%s is not compiled (marked partial: %s)',
    () => {},
  );
});
