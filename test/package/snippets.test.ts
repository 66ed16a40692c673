import { describe, expect, it } from 'vitest';
import { extractSnippets } from './snippets';

// compile.test.ts compiles what this reads; here, that it reads Markdown right.
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
