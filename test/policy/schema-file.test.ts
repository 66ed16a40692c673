import { readdirSync, readFileSync } from 'node:fs';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { schemaUrl } from '../../cli/commands/schema';
import { policyJsonSchema } from '../../policy';
import { changed, cleanPolicy } from './fixtures';

const published = JSON.parse(readFileSync('schema/retry-policy.schema.json', 'utf8')) as Record<
  string,
  unknown
>;
const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
// Strict mode, as a team's own Ajv would run it: an unknown keyword or format is an error, not a
// silent pass. The same validator editors run (yaml-language-server is draft-07 too). The one
// keyword of ours, patternErrorMessage (the editors' message for a pattern), is declared, as the
// README tells a team running Ajv in strict mode to do.
const validate = new Ajv({ strict: true, allErrors: true, keywords: ['patternErrorMessage'] }).compile(
  published,
);

type Node = {
  properties?: Record<string, Node>;
  items?: Node;
  anyOf?: Node[];
  oneOf?: Node[];
  description?: string;
};

/** Every property of the schema, by path, with its own node. */
function properties(node: Node, path = ''): Array<[string, Node]> {
  const found: Array<[string, Node]> = [];
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    found.push([`${path}.${key}`, child], ...properties(child, `${path}.${key}`));
  }
  for (const [index, child] of [...(node.anyOf ?? []), ...(node.oneOf ?? [])].entries())
    found.push(...properties(child, `${path}[${index}]`));
  if (node.items) found.push(...properties(node.items, `${path}[]`));
  return found;
}

describe('the published JSON Schema', () => {
  it('is the one the code generates (run `npm run schema` after changing policy/schema.ts)', () => {
    const { $id: _id, ...fromFile } = published;
    expect(fromFile).toEqual(policyJsonSchema());
  });

  it('names the URL where this version stays published, the one the README gives', () => {
    expect(published.$id).toBe(schemaUrl(version));
    for (const doc of ['README.md', 'examples/pulumi-program/README.md'])
      expect(readFileSync(doc, 'utf8'), doc).toContain(`$schema=${schemaUrl(version)}`);
  });

  it('describes every property', () => {
    const all = properties(published as Node);
    expect(all.length).toBeGreaterThan(80);
    expect(all.filter(([, node]) => !node.description?.trim()).map(([path]) => path)).toEqual([]);
  });

  it('says in words what every pattern wants, for editors to show instead of the expression', () => {
    const patterns: Array<{ pattern: string; patternErrorMessage?: unknown }> = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (typeof node === 'object' && node !== null) {
        const record = node as Record<string, unknown>;
        if (typeof record.pattern === 'string')
          patterns.push({ pattern: record.pattern, patternErrorMessage: record.patternErrorMessage });
        Object.values(record).forEach(walk);
      }
    };
    walk(published);
    expect(patterns.length).toBeGreaterThan(20);
    expect(patterns.filter((each) => typeof each.patternErrorMessage !== 'string')).toEqual([]);
    // A team running Ajv in strict mode without declaring the keyword gets a clear refusal.
    expect(() => new Ajv({ strict: true }).compile(published)).toThrow(
      /unknown keyword: "patternErrorMessage"/,
    );
  });

  it('uses no format a validator would have to guess at', () => {
    expect(JSON.stringify(published)).not.toContain('"format"');
  });

  it.each(readdirSync('policies').filter((name) => name.endsWith('.yaml')))('accepts policies/%s', (name) => {
    for (const document of parseAllDocuments(readFileSync(`policies/${name}`, 'utf8'))) {
      const valid = validate(document.toJS());
      expect(validate.errors ?? []).toEqual([]);
      expect(valid).toBe(true);
    }
  });

  it.each(['500ms', '2s', '1m30s', '1.5h', '14d'])('accepts the duration %s', (text) => {
    expect(validate(changed(['spec', 'backoff', 'initial'], text))).toBe(true);
    expect(validate(changed(['spec', 'immediate', 'delay'], text))).toBe(true);
  });

  it.each([
    ['a number with no unit', '2000'],
    ['an ISO 8601 duration', 'PT2S'],
    ['a word', 'fast'],
    ['a space inside', '1m 30s'],
  ])('refuses %s as a duration', (_name, text) => {
    expect(validate(changed(['spec', 'backoff', 'initial'], text))).toBe(false);
  });

  it('refuses a zero wait where the code wants a positive one, and allows it where zero means off', () => {
    expect(validate(changed(['spec', 'backoff', 'initial'], '0s'))).toBe(false);
    expect(validate(changed(['spec', 'backoff', 'initial'], '0m0s'))).toBe(false);
    expect(validate(changed(['spec', 'backoff', 'initial'], '0.5s'))).toBe(true);
    const renewalOff = cleanPolicy();
    renewalOff.spec.targets.serviceBus = { entity: 'queue', queue: 'billing-orders', lockRenewal: '0s' };
    expect(validate(renewalOff)).toBe(true);
  });

  it.each([
    ['a broken duration', ['spec', 'backoff', 'initial'], 'fast'],
    ['an unknown key', ['spec', 'maxAttempt'], 3],
    ['a missing field', ['spec', 'consumer'], undefined],
    ['an unknown jitter', ['spec', 'jitter'], 'random'],
  ])('refuses %s, as the CLI does', (_name, path, value) => {
    expect(validate(changed(path, value))).toBe(false);
  });
});
