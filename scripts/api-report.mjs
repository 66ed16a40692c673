// The public surface of the package, one API report per entry point (api/<name>.api.md), written
// by API Extractor from the built declarations in dist/. It builds nothing: `npm run api` and
// `npm run api:check` build first.
//
//   node scripts/api-report.mjs           write api/*.api.md from dist/
//   node scripts/api-report.mjs --check   fail when a report differs from dist/, or is missing
//
// The entry points are those of package.json "exports" that have declarations. A report names
// every exported name with its signature, so a change to the surface shows in review as a change
// to a file under api/ (docs/versioning.md).
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const root = resolve(import.meta.dirname, '..');
const reportFolder = join(root, 'api');
const check = process.argv.includes('--check');
const unknown = process.argv.slice(2).filter((arg) => arg !== '--check');
if (unknown.length > 0) {
  console.error(`api-report: unknown argument ${unknown.join(' ')} (only --check)`);
  process.exit(2);
}

const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Each entry point with declarations: its report's name and its .d.ts, from package.json. */
function entryPoints() {
  const entries = [];
  for (const [key, target] of Object.entries(packageJson.exports)) {
    if (typeof target !== 'string' || !target.endsWith('.js')) continue;
    const declarations = join(root, target.replace(/\.js$/, '.d.ts'));
    if (!existsSync(declarations)) {
      console.error(`api-report: ${declarations} is missing; build first (npm run build)`);
      process.exit(1);
    }
    // '.' is the package itself; './runtime/kafka' becomes runtime-kafka.
    const name = key === '.' ? packageJson.name : key.slice(2).replaceAll('/', '-');
    entries.push({ key, name, declarations });
  }
  return entries;
}

/** The compiler settings of tsconfig.json that matter for reading dist/'s declarations. */
const compilerOptions = {
  target: 'ES2022',
  lib: ['ES2022'],
  module: 'commonjs',
  moduleResolution: 'node10',
  strict: true,
  esModuleInterop: true,
  skipLibCheck: true,
  types: ['node'],
};

/** One entry point's API Extractor configuration; the report goes to `folder`. */
function configFor(entry, folder, temp) {
  return ExtractorConfig.prepare({
    configObjectFullPath: join(root, 'api-extractor.json'),
    packageJsonFullPath: join(root, 'package.json'),
    packageJson,
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: entry.declarations,
      newlineKind: 'lf',
      compiler: {
        overrideTsconfig: { compilerOptions, files: entryPoints().map((each) => each.declarations) },
        skipLibCheck: true,
      },
      apiReport: {
        enabled: true,
        reportFileName: entry.name,
        reportFolder: folder,
        reportTempFolder: temp,
        includeForgottenExports: false,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'error' } },
        extractorMessageReporting: {
          default: { logLevel: 'warning' },
          // Every exported name is public: the package uses no @alpha/@beta/@internal tags.
          'ae-missing-release-tag': { logLevel: 'none' },
          // The report marks an undocumented name; the docs/ pages are the documentation.
          'ae-undocumented': { logLevel: 'none' },
          // An exported signature that names a type the entry point does not export: checked below
          // against every entry point's exports.
          'ae-forgotten-export': { logLevel: 'warning', addToApiReportFile: false },
        },
        // The comments are JSDoc written for editors, not TSDoc for a documentation site.
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
  });
}

const temp = mkdtempSync(join(tmpdir(), 'retry-topology-api-'));
// Written here first; api/ changes only when every report was made without an error.
const written = join(temp, 'reports');
mkdirSync(written, { recursive: true });
const entries = entryPoints();
let errors = 0;
const warnings = [];
/** Signatures that name a type their entry point does not export: the entry point and the name. */
const forgotten = [];
/** Every name some entry point exports. */
const exported = new Set();
try {
  // One compiler program for every entry point: they share most of their declarations.
  const first = configFor(entries[0], written, join(temp, 'work'));
  const compilerState = CompilerState.create(first, {
    additionalEntryPoints: entries.map((entry) => entry.declarations),
  });
  for (const entry of entries) {
    const config = configFor(entry, written, join(temp, 'work'));
    const result = Extractor.invoke(config, {
      localBuild: true,
      compilerState,
      messageCallback: (message) => {
        message.handled = true;
        if (message.logLevel === 'none' || message.logLevel === 'verbose' || message.logLevel === 'info') return;
        // API Extractor's own notes on the report files: the summary below says what matters.
        if (message.logLevel !== 'error' && message.messageId.startsWith('console-')) return;
        if (message.messageId === 'ae-forgotten-export') {
          const symbol = /The symbol "([^"]+)"/.exec(message.text)?.[1] ?? message.text;
          const where = `${relative(root, message.sourceFilePath ?? '')}:${message.sourceFileLine}`;
          forgotten.push({ entry: entry.name, symbol, where });
          return;
        }
        const text = `${entry.name}: ${message.formatMessageWithLocation(root)}`;
        if (message.logLevel === 'error') console.error(`api-report: ERROR ${text}`);
        else warnings.push(text);
      },
    });
    errors += result.errorCount;
    for (const name of exportedNames(readFileSync(join(written, `${entry.name}.api.md`), 'utf8'))) {
      exported.add(name);
    }
  }
  // A signature may name a type another entry point exports (the plan types of `retry-topology`
  // in the runtime's signatures): users import it from there. A type no entry point exports
  // cannot be named by users at all: an error, fixed by exporting it.
  for (const { entry, symbol, where } of forgotten) {
    if (exported.has(symbol)) continue;
    console.error(
      `api-report: ERROR ${entry}: ${where} names "${symbol}", which no entry point exports ` +
        '(ae-forgotten-export): export it where users can import it',
    );
    errors++;
  }
  for (const warning of warnings) console.error(`api-report: warning ${warning}`);
  if (errors > 0) {
    console.error(`api-report: ${errors} error(s); the reports in api/ are not written`);
    process.exitCode = 1;
  } else if (check) {
    process.exitCode = compare(entries) ? 0 : 1;
  } else {
    mkdirSync(reportFolder, { recursive: true });
    const names = new Set(entries.map((entry) => `${entry.name}.api.md`));
    for (const file of names) copyFileSync(join(written, file), join(reportFolder, file));
    // A report of an entry point that no longer exists goes.
    for (const file of readdirSync(reportFolder)) {
      if (file.endsWith('.api.md') && !names.has(file)) rmSync(join(reportFolder, file));
    }
    console.log(`api-report: wrote ${entries.length} reports to api/`);
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}

/** The names a report declares as exported. */
function exportedNames(report) {
  const declaration = /^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|enum|namespace) (\w+)/gm;
  return [...report.matchAll(declaration)].map((match) => match[1]);
}

/** True when api/ holds exactly the reports just made; otherwise says which differ, and how to fix. */
function compare(entries) {
  const problems = [];
  const names = new Set();
  for (const entry of entries) {
    const file = `${entry.name}.api.md`;
    names.add(file);
    const committed = join(reportFolder, file);
    const made = readFileSync(join(written, file), 'utf8');
    if (!existsSync(committed)) problems.push(`api/${file} is missing (entry point ${entry.key})`);
    else if (readFileSync(committed, 'utf8') !== made) {
      problems.push(`api/${file} differs from the exports of entry point ${entry.key}`);
    }
  }
  if (existsSync(reportFolder)) {
    for (const file of readdirSync(reportFolder)) {
      if (file.endsWith('.api.md') && !names.has(file)) {
        problems.push(`api/${file} belongs to no entry point of package.json "exports"`);
      }
    }
  }
  if (problems.length === 0) {
    console.log(`api-report: the ${entries.length} reports in api/ match the code`);
    return true;
  }
  for (const problem of problems) console.error(`api-report: ${problem}`);
  console.error(
    'api-report: the public surface changed. Run `npm run api` and commit api/ with the change, ' +
      'so review sees it (docs/versioning.md).',
  );
  return false;
}
