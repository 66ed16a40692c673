import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { entryPoints } from './consumer-project';

/**
 * The package as a team gets it: packed from a fresh clone, installed by npm into a project made
 * like `pulumi new typescript`, loaded by Node, run as a Pulumi program, and its command line
 * run. compile.test.ts checks its types with the project's own compiler.
 */
const project = inject('consumer');
const tarball = inject('tarball');
const installed = join(project, 'node_modules', 'retry-topology');
const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
  version: string;
  exports: Record<string, string>;
  [key: string]: unknown;
};
const entries = entryPoints(project);

describe('the tarball', () => {
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n');

  it('holds the licence, the readme, the compiled code with its types, the schema and the docs', () => {
    for (const file of [
      'package/LICENSE',
      'package/README.md',
      'package/dist/cli/main.js',
      'package/dist/policy/index.d.ts',
      'package/schema/retry-policy.schema.json',
      'package/docs/codes/README.md',
    ])
      expect(files).toContain(file);
    for (const entry of Object.values(manifest.exports)) expect(files).toContain(`package/${entry.slice(2)}`);
  });

  it('holds no sources, tests, configs or anything the build left over from other folders', () => {
    const unexpected = files.filter(
      (file) =>
        !/^package\/(LICENSE|README\.md|package\.json|BENCHMARKS\.md|CHANGELOG\.md|SECURITY\.md)$/.test(
          file,
        ) && !/^package\/(dist\/(policy|runtime|components|cli)|schema|docs|examples)\//.test(file),
    );
    expect(unexpected).toEqual([]);
    // The examples a user copies hold a Pulumi program in TypeScript; nothing else is a source.
    expect(
      files.filter(
        (file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !file.startsWith('package/examples/'),
      ),
    ).toEqual([]);
    // How the project is built and tested is for contributors, in the repository only.
    expect(files.filter((file) => file.startsWith('package/docs/contributing/'))).toEqual([]);
  });

  it('says what it is and where it comes from', () => {
    expect(manifest.license).toBe('Apache-2.0');
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(
      /Apache License\s+Version 2\.0, January 2004[\s\S]*END OF TERMS AND CONDITIONS/,
    );
    expect(manifest.repository).toMatchObject({
      type: 'git',
      url: expect.stringMatching(/^git\+https:\/\//),
    });
    expect(manifest.homepage).toMatch(/^https:\/\//);
    expect(manifest.bugs).toMatchObject({ url: expect.stringMatching(/^https:\/\//) });
    expect((manifest.keywords as string[]).length).toBeGreaterThan(3);
  });
});

describe('the installed package', () => {
  it('loads with plain Node, every entry point', () => {
    const script = `for (const path of ${JSON.stringify(entries)}) console.log(path, Object.keys(require(path)).length);`;
    const result = spawnSync(process.execPath, ['-e', script], { cwd: project, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    const lines = result.stdout.trim().split('\n');
    expect(lines.map((line) => line.split(' ')[0])).toEqual(entries);
    for (const line of lines) expect(Number(line.split(' ')[1])).toBeGreaterThan(0);
  });

  it('puts the schema where the README says', () => {
    const resolved = spawnSync(
      process.execPath,
      ['-p', "require.resolve('retry-topology/schema/retry-policy.schema.json')"],
      { cwd: project, encoding: 'utf8' },
    );
    expect(resolved.stdout.trim()).toBe(join(installed, 'schema', 'retry-policy.schema.json'));
  });

  describe('its command line, as `npx retry-topology`', () => {
    const bin = join(project, 'node_modules', '.bin', 'retry-topology');
    const run = (...args: string[]) => spawnSync(bin, args, { cwd: project, encoding: 'utf8' });
    copyFileSync(join(__dirname, '..', '..', 'policies', 'billing.yaml'), join(project, 'billing.yaml'));

    it('validates and plans a policy', () => {
      const validated = run('validate', 'billing.yaml');
      expect(validated.status).toBe(0);
      expect(validated.stdout + validated.stderr).toMatch(/1 policy in 1 file valid \(0 errors/);
      const plan = run('plan', 'billing.yaml', '--format', 'json');
      expect(plan.status).toBe(0);
      expect(JSON.parse(plan.stdout)).toMatchObject({ policy: 'billing.order-placed' });
    });

    it('refuses a broken policy with its line and no stack trace', () => {
      writeFileSync(
        join(project, 'broken.yaml'),
        readFileSync(join(project, 'billing.yaml'), 'utf8').replace('initial: 1s', 'initial: fast'),
      );
      const result = run('validate', 'broken.yaml');
      expect(result.status).toBe(1);
      // Findings on stdout, as linters print them: `validate … | grep` finds them.
      expect(result.stdout).toMatch(
        /broken\.yaml:\d+:\d+ spec\.backoff\.initial: .*\[error invalid-duration\]/,
      );
      expect(result.stdout + result.stderr).not.toMatch(/\n\s+at /);
    });

    it('prints the schema that names its own published URL', () => {
      const schema = JSON.parse(run('schema').stdout) as { $id: string };
      expect(schema.$id).toContain(`/v${manifest.version}/schema/retry-policy.schema.json`);
      expect(schema).toEqual(
        JSON.parse(readFileSync(join(installed, 'schema', 'retry-policy.schema.json'), 'utf8')),
      );
    });
  });
});

describe('the published declarations', () => {
  /** The packages an entry point's .d.ts files import, following the package's own files. */
  function importedPackages(entry: string): string[] {
    const target = manifest.exports[`.${entry.slice('retry-topology'.length)}`] ?? '';
    const pending = [join(installed, target.replace(/\.js$/, '.d.ts'))];
    const seen = new Set<string>();
    const packages = new Set<string>();
    while (pending.length > 0) {
      const file = pending.pop() ?? '';
      if (seen.has(file)) continue;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      for (const [, specifier = ''] of text.matchAll(
        /(?:from\s+|import\(\s*|<reference types=)["']([^"']+)["']/g,
      )) {
        if (!specifier.startsWith('.'))
          packages.add(
            specifier
              .split('/')
              .slice(0, specifier.startsWith('@') ? 2 : 1)
              .join('/'),
          );
        else {
          const base = join(dirname(file), specifier);
          pending.push(existsSync(`${base}.d.ts`) ? `${base}.d.ts` : join(base, 'index.d.ts'));
        }
      }
    }
    return [...packages].sort();
  }
  const peers = Object.keys(manifest.peerDependencies as Record<string, string>);

  it.each(entries)(
    'of %s name only peer packages and Node, never the validator or the YAML parser',
    (entry) => {
      const imported = importedPackages(entry);
      // `node` is `/// <reference types="node" />`: Node's own types, which the runtime's use.
      expect(imported.filter((name) => !peers.includes(name) && !isBuiltin(name) && name !== 'node')).toEqual(
        [],
      );
    },
  );

  it('of the main entry point name no other package at all', () => {
    expect(importedPackages('retry-topology')).toEqual([]);
  });
});

describe('a Pulumi program', () => {
  it('runs under the Pulumi SDK (type-checked by its ts-node) and builds the topology', () => {
    copyFileSync(join(__dirname, 'user-program.ts.txt'), join(project, 'index.ts'));
    copyFileSync(join(project, 'billing.yaml'), join(project, 'policy.yaml'));
    const result = spawnSync(process.execPath, [join(__dirname, 'load-program.cjs'), project], {
      encoding: 'utf8',
    });
    expect(result.stderr).not.toMatch(/TSError|Cannot find module|error TS/);
    expect(result.status).toBe(0);
    const { types, consumer, resolved } = JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}');
    expect(resolved).toContain(join('node_modules', 'retry-topology', 'dist', 'components'));
    expect(consumer).toBe('function');
    expect(types).toContain('retry-topology:index:RetryTopology');
    expect(types).toContain('retry-topology:index:RabbitMqRetryTopology');
    expect(types).toContain('rabbitmq:index/queue:Queue');
    expect(types).toContain('kafka:index/topic:Topic');
  });
});
