import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, inject, it } from 'vitest';

/**
 * An editor on a policy file, as the README tells a team to set it up: the modeline points
 * yaml-language-server (the engine of the YAML extensions for VS Code and other editors) at the
 * schema installed under node_modules. Run through yaml-language-server's own validation, with the
 * file read from disk the way the editor reads it.
 */
const ROOT = resolve(__dirname, '..', '..');
const project = inject('consumer');

interface Diagnostic {
  line: number;
  message: string;
}
let validate: (file: string) => Promise<Diagnostic[]>;

beforeAll(async () => {
  const load = (path: string) => import(pathToFileURL(join(project, 'node_modules', path)).href);
  const { getLanguageService } = await load('yaml-language-server/out/src/index.js');
  const { TextDocument } = await load('vscode-languageserver-textdocument/lib/esm/main.js');
  const service = getLanguageService({
    schemaRequestService: async (uri: string) => readFileSync(new URL(uri), 'utf8'),
    workspaceContext: {
      resolveRelativePath: (relative: string, from: string) => new URL(relative, from).href,
    },
  });
  service.configure({ validate: true, completion: false, hover: false, format: false, yamlVersion: '1.2' });
  validate = async (file) => {
    const uri = pathToFileURL(file).href;
    const document = TextDocument.create(uri, 'yaml', 1, readFileSync(file, 'utf8'));
    const found = (await service.doValidation(document, false)) as Array<{
      range: { start: { line: number } };
      message: string;
    }>;
    return found.map((each) => ({ line: each.range.start.line + 1, message: each.message }));
  };
});

/** The README's modeline for the installed schema, exactly as written there. */
const modeline = /^# yaml-language-server: \$schema=\.\.\/node_modules\/\S+$/m.exec(
  readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/^\s*`|`\s*$/gm, ''),
)?.[0];

/** policies/billing.yaml under the README's modeline, with one change. */
function policy(name: string, change: (text: string) => string = (text) => text): string {
  const body = readFileSync(join(ROOT, 'policies', 'billing.yaml'), 'utf8')
    .split('\n')
    .slice(1)
    .join('\n');
  mkdirSync(join(project, 'policies'), { recursive: true });
  const file = join(project, 'policies', `${name}.yaml`);
  writeFileSync(file, change(`${modeline}\n${body}`));
  return file;
}
const lineOf = (file: string, text: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((line) => line.includes(text)) + 1;

describe('yaml-language-server with the schema the README points at', () => {
  it('finds the modeline in the README', () => {
    expect(modeline).toBe(
      '# yaml-language-server: $schema=../node_modules/retry-topology/schema/retry-policy.schema.json',
    );
  });

  it('accepts the example policy, durations included', async () => {
    expect(await validate(policy('billing'))).toEqual([]);
  });

  it.each([
    ['a number with no unit', 'initial: 1s', 'initial: 2000', /Incorrect type/],
    // The schema's patternErrorMessage, not the regular expression.
    [
      'an ISO 8601 duration',
      'initial: 1s',
      'initial: PT2S',
      /^a duration above zero like "500ms", "2s" or "1m30s" \(units/,
    ],
    [
      'a zero wait where one is needed',
      'deadline: 30m',
      'deadline: 0s',
      /^a duration above zero like "500ms"/,
    ],
    ['an unknown key', 'maxAttempts: 4', 'maxAttempt: 4', /not allowed/],
  ])('marks %s on its line', async (_name, from, to, message) => {
    // A file of its own per case: the language service caches a document by its URI and version.
    const file = policy(`changed-${to.replace(/\W+/g, '-')}`, (text) => text.replace(from, to));
    const found = await validate(file);
    expect(found.map((each) => each.line)).toContain(lineOf(file, to));
    expect(found.find((each) => each.line === lineOf(file, to))?.message).toMatch(message);
  });
});
