import type { ZodType, z } from 'zod';
import { closest, describeValue, quoteAll } from './describe';
import { parseDuration } from './duration';
import { type Issue, type IssuePath, issue, type SourceText } from './issues';
import { durationOf, isIntegerNode, keysOf, nodeAt, numberBounds, valueAt } from './schema-walk';

/**
 * Turns the schema validator's issues into ours: a stable code, the path, and a message that
 * says what is accepted there and what was found. Every duration field says the same thing with
 * the same code, whatever check failed; a number says its own bounds.
 */

type ZodIssue = z.core.$ZodIssue & { input?: unknown };

const DURATION_EXPECTED = 'a duration like "500ms" or "2s" (units ms, s, m, h, d)';
const ZERO_REFUSED = 'a duration above zero like "500ms" or "2s"';

const PATTERN_HINTS: Array<[RegExp, string]> = [
  [/^\^\\d\+\\\.\\d\+/, 'a version like "3.13.7" (quote it, or YAML reads 3.10 as the number 3.1)'],
  [/^\^\[a-z0-9\]/, 'a lowercase name of letters, digits, ".", "_" and "-"'],
  [/^\^\[A-Za-z0-9\]/, 'a name of letters, digits, ".", "_" and "-"'],
];

/** "a whole number from 1 to 100", "a number >= 1". */
function numberExpected(node: ZodType | undefined): string {
  const what = isIntegerNode(node) ? 'a whole number' : 'a number';
  const { min, max } = numberBounds(node);
  if (min !== undefined && max !== undefined) return `${what} from ${min} to ${max}`;
  if (min !== undefined) return `${what} >= ${min}`;
  if (max !== undefined) return `${what} <= ${max}`;
  return what;
}

function expectedType(expected: string, node: ZodType | undefined): string {
  const duration = durationOf(node);
  if (duration) return DURATION_EXPECTED;
  switch (expected) {
    case 'number':
    case 'int':
      return numberExpected(node);
    case 'string':
      return 'text';
    case 'boolean':
      return 'true or false';
    case 'object':
      return 'a mapping';
    case 'array':
      return 'a list';
    default:
      return expected;
  }
}

function unionExpected(zodIssue: ZodIssue & { errors?: ZodIssue[][] }, node: ZodType | undefined): string {
  const parts = new Set<string>();
  for (const branch of zodIssue.errors ?? []) {
    for (const inner of branch) {
      if (inner.path.length > 0) continue;
      if (inner.code === 'invalid_type') parts.add(expectedType(inner.expected, node));
      if (inner.code === 'invalid_value') parts.add(quoteAll(inner.values));
      if (inner.code === 'too_small') parts.add(`a number >= ${String(inner.minimum)}`);
    }
  }
  return [...parts].join(' or ') || 'another value';
}

function sizeMessage(zodIssue: ZodIssue, input: unknown, node: ZodType | undefined): string {
  if (zodIssue.code !== 'too_small' && zodIssue.code !== 'too_big') return '';
  const bound = String(zodIssue.code === 'too_small' ? zodIssue.minimum : zodIssue.maximum);
  const word = zodIssue.code === 'too_small' ? 'at least' : 'at most';
  switch (zodIssue.origin) {
    case 'array':
      return `expected ${word} ${bound} item(s), got ${describeValue(input)}`;
    case 'string':
      return `expected ${word} ${bound} character(s), got ${describeValue(input)}`;
    default:
      return `expected ${numberExpected(node)}, got ${describeValue(input)}`;
  }
}

/** Why a value of the wrong type was probably written that way, and how to write it. */
function typeHint(
  expected: string,
  input: unknown,
  written: string | undefined,
  isDuration: boolean,
): string {
  if (isDuration && typeof input === 'number') return ` (write the unit, e.g. "${written ?? input}s")`;
  if (isDuration) return '';
  if (expected === 'string' && (typeof input === 'number' || typeof input === 'boolean')) {
    const text = written ?? String(input);
    return written !== undefined && written !== String(input)
      ? ` (written ${written}; put it in quotes: "${text}")`
      : ` (put it in quotes: "${text}")`;
  }
  if ((expected === 'number' || expected === 'int') && typeof input === 'string' && input.trim() !== '') {
    return Number.isFinite(Number(input)) ? ' (write it without quotes)' : '';
  }
  return '';
}

/** One zod issue may become several of ours (one per unknown key). */
function convert(zodIssue: ZodIssue, schema: ZodType, document: unknown, written: SourceText): Issue[] {
  const path = zodIssue.path.filter((key): key is string | number => typeof key !== 'symbol');
  const node = nodeAt(schema, path, document);
  // zod reports a wrong discriminator with the whole mapping as its input; the value is below it.
  const input = zodIssue.code === 'invalid_union' ? valueAt(document, path) : zodIssue.input;
  const duration = durationOf(node);
  if (duration && input !== undefined) {
    const zero = duration.positive && typeof input === 'string' && parseDuration(input) === 0;
    const expected = zero ? ZERO_REFUSED : DURATION_EXPECTED;
    const hint = typeHint('string', input, written(path), true);
    return [issue('invalid-duration', path, `expected ${expected}, got ${describeValue(input)}${hint}`)];
  }

  switch (zodIssue.code) {
    case 'invalid_type': {
      const expected = expectedType(zodIssue.expected, node);
      if (input === undefined)
        return [issue('required', path, `required: expected ${expected}, got nothing`)];
      const hint = typeHint(zodIssue.expected, input, written(path), false);
      return [issue('invalid-type', path, `expected ${expected}, got ${describeValue(input)}${hint}`)];
    }
    case 'invalid_value': {
      const values = zodIssue.values;
      if (input === undefined)
        return [
          issue(
            'required',
            path,
            `required: expected ${values.length === 1 ? quoteAll(values) : `one of ${quoteAll(values)}`}, got nothing`,
          ),
        ];
      const suggestion =
        typeof input === 'string'
          ? closest(
              input,
              values.filter((v) => typeof v === 'string'),
            )
          : undefined;
      const expected = values.length === 1 ? quoteAll(values) : `one of ${quoteAll(values)}`;
      const message = `expected ${expected}, got ${describeValue(input)}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`;
      return [issue('invalid-value', path, message)];
    }
    case 'unrecognized_keys': {
      const known = keysOf(node, zodIssue.input);
      return zodIssue.keys.map((key) => {
        const suggestion = closest(key, known);
        const tail = suggestion ? ` (did you mean "${suggestion}"?)` : ` (known keys: ${known.join(', ')})`;
        return issue('unknown-key', [...path, key], `unknown key ${describeValue(key)}${tail}`);
      });
    }
    case 'invalid_union': {
      const withNote = zodIssue as ZodIssue & { note?: string; options?: unknown[] };
      if (withNote.options) {
        const expected = `one of ${quoteAll(withNote.options)}`;
        if (input === undefined)
          return [issue('required', path, `required: expected ${expected}, got nothing`)];
        const suggestion =
          typeof input === 'string'
            ? closest(
                input,
                withNote.options.filter((v): v is string => typeof v === 'string'),
              )
            : undefined;
        const tail = suggestion ? ` (did you mean "${suggestion}"?)` : '';
        return [issue('invalid-value', path, `expected ${expected}, got ${describeValue(input)}${tail}`)];
      }
      return [
        issue(
          'invalid-value',
          path,
          `expected ${unionExpected(zodIssue, node)}, got ${describeValue(input)}`,
        ),
      ];
    }
    case 'too_small':
    case 'too_big':
      return [issue('out-of-range', path, sizeMessage(zodIssue, input, node))];
    case 'invalid_format': {
      const pattern = 'pattern' in zodIssue ? String(zodIssue.pattern) : '';
      const hint = PATTERN_HINTS.find(([shape]) => shape.test(pattern.replace(/^\//, '')))?.[1];
      return [
        issue(
          'invalid-format',
          path,
          `expected ${hint ?? `text matching ${pattern}`}, got ${describeValue(input)}`,
        ),
      ];
    }
    default:
      return [issue('invalid-value', path, `${zodIssue.message}, got ${describeValue(input)}`)];
  }
}

export function schemaIssues(
  issues: readonly ZodIssue[],
  schema: ZodType,
  document: unknown,
  written: SourceText = () => undefined,
): Issue[] {
  // Several checks can fail on one value (a number fails its integer and its range check): one
  // message per place is enough, and the first is the most basic.
  const seen = new Set<string>();
  return issues
    .flatMap((each) => convert(each, schema, document, written))
    .filter((found) => {
      const key = JSON.stringify(found.path);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

export type { IssuePath };
