import { readdirSync, readFileSync } from 'node:fs';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { policyJsonSchema } from '../../policy';
import { changed } from './fixtures';

const published = JSON.parse(readFileSync('schema/retry-policy.schema.json', 'utf8')) as Record<
  string,
  unknown
>;
// The same validator editors run (yaml-language-server is draft-07 too).
const validate = new Ajv({ strict: false, allErrors: true }).compile(published);

describe('the published JSON Schema', () => {
  it('is the one the code generates (run `npm run schema` after changing policy/schema.ts)', () => {
    const { $id: _id, ...fromFile } = published;
    expect(fromFile).toEqual(policyJsonSchema());
  });

  it.each(readdirSync('policies').filter((name) => name.endsWith('.yaml')))('accepts policies/%s', (name) => {
    for (const document of parseAllDocuments(readFileSync(`policies/${name}`, 'utf8'))) {
      const valid = validate(document.toJS());
      expect(validate.errors ?? []).toEqual([]);
      expect(valid).toBe(true);
    }
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
