import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { TEMPLATE_OPTIONS, writeTsconfig } from './consumer-project';
import { allSnippets, extractSnippets, type Snippet } from './snippets';

/**
 * Every TypeScript snippet in README.md and docs/ compiles as a reader would paste it: each one is
 * a file of its own in a project made like `pulumi new typescript` (its tsconfig, no
 * esModuleInterop, no skipLibCheck), with the packed package and the peers installed. Errors are
 * reported at their line in the Markdown file.
 */
const ROOT = resolve(__dirname, '..', '..');
const project = inject('consumer');
const snippets = allSnippets(ROOT);
const compiled = snippets.filter((snippet) => !snippet.partial);
const partial = snippets.filter((snippet) => snippet.partial);

/** A file of its own per snippet: a snippet without import or export is a module all the same. */
function sourceOf(snippet: Snippet): string {
  const isModule = /^(import|export)\s/m.test(snippet.code);
  return isModule ? `${snippet.code}\n` : `${snippet.code}\nexport {};\n`;
}

const errors = new Map<string, string[]>();
const elsewhere: string[] = [];

beforeAll(() => {
  const dir = join(project, 'snippets');
  mkdirSync(dir, { recursive: true });
  const byFile = new Map<string, Snippet>();
  const files = compiled.map((snippet, index) => {
    const file = `snippets/s${String(index + 1).padStart(2, '0')}.ts`;
    writeFileSync(join(project, file), sourceOf(snippet));
    byFile.set(file, snippet);
    return file;
  });
  const config = writeTsconfig(project, 'tsconfig.snippets.json', TEMPLATE_OPTIONS, files);
  const result = spawnSync(
    join(project, 'node_modules', '.bin', 'tsc'),
    ['--noEmit', '--pretty', 'false', '-p', config],
    {
      cwd: project,
      encoding: 'utf8',
    },
  );
  let last: string[] = elsewhere;
  for (const line of result.stdout.split('\n')) {
    if (line.trim() === '') continue;
    const at = /^(snippets\/s\d+\.ts)\((\d+),(\d+)\): (.*)$/.exec(line);
    const snippet = at ? byFile.get(at[1] ?? '') : undefined;
    if (at && snippet) {
      last = errors.get(snippet.name) ?? [];
      errors.set(snippet.name, last);
      last.push(`${snippet.file}:${snippet.line + Number(at[2]) - 1}:${at[3]} ${at[4]}`);
    } else if (/^\s/.test(line)) {
      last.push(line); // a continuation of the message above
    } else {
      last = elsewhere;
      elsewhere.push(line);
    }
  }
  if (partial.length > 0)
    console.info(
      `Snippets not compiled, marked partial:\n${partial.map((snippet) => `  ${snippet.name} (${snippet.file}:${snippet.line}): ${snippet.partial}`).join('\n')}`,
    );
});

describe('the documentation snippets', () => {
  it('are found: README.md and docs/ hold TypeScript snippets', () => {
    expect(compiled.length).toBeGreaterThanOrEqual(8);
  });

  it.each(compiled.map((snippet) => [snippet.name, snippet] as const))('%s compiles', (_name, snippet) => {
    expect(errors.get(snippet.name) ?? []).toEqual([]);
  });

  it('bring no errors from the installed packages', () => {
    expect(elsewhere).toEqual([]);
  });

  // Listed by name so a partial snippet is never dropped without a trace.
  it.skip.each(partial.map((snippet) => [snippet.name, snippet.partial] as const))(
    '%s is not compiled (marked partial: %s)',
    () => {},
  );
});

describe('reading snippets out of Markdown', () => {
  const markdown = [
    '# Title',
    '```yaml',
    '# not a heading',
    '```',
    '## Usage',
    '```ts',
    'const a = 1;',
    '```',
    '',
    '<!-- snippet: partial — needs your own handler -->',
    '```typescript',
    'handler();',
    '```',
    '- a list item:',
    '  ```ts',
    '  const b = 2;',
    '  ```',
  ].join('\n');
  const found = extractSnippets('/repo/docs/x.md', markdown, '/repo');

  it('names each snippet by file and heading, with its line, its partial mark and its indentation removed', () => {
    expect(found).toEqual([
      { name: 'docs/x.md › Usage', file: 'docs/x.md', line: 7, code: 'const a = 1;' },
      {
        name: 'docs/x.md › Usage #2',
        file: 'docs/x.md',
        line: 12,
        code: 'handler();',
        partial: 'needs your own handler',
      },
      { name: 'docs/x.md › Usage #3', file: 'docs/x.md', line: 16, code: 'const b = 2;' },
    ]);
  });

  it('refuses a fence that never closes', () => {
    expect(() => extractSnippets('/repo/README.md', '```ts\nconst a = 1;\n', '/repo')).toThrow(
      /never closes/,
    );
  });
});
