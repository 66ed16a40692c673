import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The TypeScript snippets of the README and docs/, as a reader would copy them. A snippet that is
 * deliberately not a whole program says so with a comment on the line before its fence:
 *
 *   <!-- snippet: partial — why it cannot compile on its own -->
 *   ```ts
 *
 * and is then listed by name as not compiled, never dropped silently.
 */

export interface Snippet {
  /** "README.md › RabbitMQ (amqplib)", with " #2" for a second snippet under one heading. */
  name: string;
  file: string;
  /** Line of the first code line in the Markdown file (1-based). */
  line: number;
  code: string;
  /** Why it is not compiled, when it is marked partial. */
  partial?: string;
}

const FENCE = /^(\s*)```+\s*(ts|typescript|tsx)\s*$/;
const CLOSE = /^\s*```+\s*$/;
const PARTIAL = /^<!--\s*snippet:\s*partial\s*[—–-]\s*(.+?)\s*-->$/;

export function extractSnippets(path: string, text: string, root: string): Snippet[] {
  const file = relative(root, path);
  const lines = text.split('\n');
  const snippets: Snippet[] = [];
  const perHeading = new Map<string, number>();
  let heading = '';
  let inOtherFence = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    if (!inOtherFence && /^#{1,6}\s/.test(line)) heading = line.replace(/^#+\s*/, '').trim();
    const open = FENCE.exec(line);
    if (!open) {
      if (/^\s*```/.test(line)) inOtherFence = !inOtherFence;
      continue;
    }
    const indent = open[1]?.length ?? 0;
    const start = index + 1;
    let end = start;
    while (end < lines.length && !CLOSE.test(lines[end] ?? '')) end++;
    if (end === lines.length) throw new Error(`${file}:${index + 1}: a TypeScript fence that never closes`);
    const count = (perHeading.get(heading) ?? 0) + 1;
    perHeading.set(heading, count);
    let before = index - 1;
    while (before >= 0 && (lines[before] ?? '').trim() === '') before--;
    const partial = PARTIAL.exec((lines[before] ?? '').trim())?.[1];
    snippets.push({
      name: `${file} › ${heading || '(top)'}${count > 1 ? ` #${count}` : ''}`,
      file,
      line: start + 1,
      code: lines
        .slice(start, end)
        .map((code) => code.slice(Math.min(indent, code.length - code.trimStart().length)))
        .join('\n'),
      ...(partial ? { partial } : {}),
    });
    index = end;
  }
  return snippets;
}

/** README.md and every Markdown file under docs/. */
export function documentationFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(root, 'docs', name));
  return [join(root, 'README.md'), ...docs];
}

export function allSnippets(root: string): Snippet[] {
  return documentationFiles(root).flatMap((path) => extractSnippets(path, readFileSync(path, 'utf8'), root));
}
