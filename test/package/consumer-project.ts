import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * A project laid out the way `pulumi new typescript` makes one (pulumi/templates, typescript/:
 * package.json with `main: index.ts`, no "type", so CommonJS; the tsconfig.json below), with the
 * packed tarball and the peer packages installed by npm, as a team would install them.
 */

const ROOT = resolve(__dirname, '..', '..');

/** The template's compiler options since March 2026 (pulumi/templates 81e6522: nodenext). */
export const TEMPLATE_OPTIONS = {
  strict: true,
  outDir: 'bin',
  target: 'es2020',
  module: 'nodenext',
  moduleResolution: 'nodenext',
  sourceMap: true,
  experimentalDecorators: true,
  pretty: true,
  noFallthroughCasesInSwitch: true,
  noImplicitReturns: true,
  forceConsistentCasingInFileNames: true,
} as const;

/**
 * What the template wrote from 2024 until then, and what most existing programs still have:
 * `moduleResolution: node`, which ignores "exports" and finds subpaths through "typesVersions".
 */
export const TEMPLATE_NODE10_OPTIONS = { ...TEMPLATE_OPTIONS, module: 'commonjs', moduleResolution: 'node' };

/** A bundler-based setup (esbuild, Vite, tsup and the like). */
export const BUNDLER_OPTIONS = { ...TEMPLATE_OPTIONS, module: 'esnext', moduleResolution: 'bundler' };

/** Neither the template nor these set esModuleInterop or skipLibCheck: every .d.ts is checked. */
export function writeTsconfig(dir: string, name: string, options: object, files: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${JSON.stringify({ compilerOptions: options, files }, null, 4)}\n`);
  return path;
}

/**
 * The version of `name` this repository tests with: the one in its node_modules (the lockfile's,
 * or a floor that scripts/peer-floors.sh installed over it), so npm finds it in its cache.
 * Undefined when it is not installed.
 */
export function installedVersion(name: string): string | undefined {
  const manifest = join(ROOT, 'node_modules', name, 'package.json');
  if (!existsSync(manifest)) return undefined;
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** installedVersion, for a package the tests cannot do without. */
export function requiredVersion(name: string): string {
  const version = installedVersion(name);
  if (!version) throw new Error(`${name} is not installed in ${join(ROOT, 'node_modules')}`);
  return version;
}

export function createConsumerProject(tarball: string, packages: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'rt-consumer-'));
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify(
      {
        name: 'user-project',
        main: 'index.ts',
        devDependencies: {
          '@types/node': requiredVersion('@types/node'),
          typescript: requiredVersion('typescript'),
        },
      },
      null,
      4,
    )}\n`,
  );
  writeFileSync(join(dir, 'Pulumi.yaml'), 'name: user-project\nruntime: nodejs\n');
  writeTsconfig(dir, 'tsconfig.json', TEMPLATE_OPTIONS, ['index.ts']);
  execFileSync(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball, ...packages],
    {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  return dir;
}

/** Every code entry point the installed package exports, as import specifiers. */
export function entryPoints(project: string): string[] {
  const manifest = JSON.parse(
    readFileSync(join(project, 'node_modules', 'retry-topology', 'package.json'), 'utf8'),
  ) as { exports: Record<string, string> };
  return Object.entries(manifest.exports)
    .filter(([, target]) => target.endsWith('.js'))
    .map(([key]) => `retry-topology${key.slice(1)}`);
}
