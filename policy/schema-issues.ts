import type { ZodType, z } from 'zod';
import { closest, describeValue, quoteAll } from './describe';
import { type Issue, type IssuePath, issue } from './issues';
import { isIntegerNode, keysOf, metaOf, nodeAt } from './schema-walk';

/**
 * Turns the schema validator's issues into ours: a stable code, the path, and a message that
 * says what was expected and what was found.
 */

type ZodIssue = z.core.$ZodIssue & { input?: unknown };

const DURATION_EXPECTED = 'a duration like "500ms" or "2s"';

const PATTERN_HINTS: Array<[RegExp, string]> = [
  [/^\^\\d\+\\\.\\d\+/, 'a version like "3.13.7" (quote it, or YAML reads 3.10 as the number 3.1)'],
  [/^\^\[a-z0-9\]/, 'a lowercase name of letters, digits, ".", "_" and "-"'],
  [/^\^\[A-Za-z0-9\]/, 'a name of letters, digits, ".", "_" and "-"'],
];

function expectedType(expected: string, node: ZodType | undefined): string {
  if (metaOf(node).format === 'duration') return DURATION_EXPECTED;
  switch (expected) {
    case 'number':
      return isIntegerNode(node) ? 'a whole number' : 'a number';
    case 'int':
      return 'a whole number';
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

function rangeMessage(zodIssue: ZodIssue, input: unknown): string {
  if (zodIssue.code !== 'too_small' && zodIssue.code !== 'too_big') return '';
  const bound = String(zodIssue.code === 'too_small' ? zodIssue.minimum : zodIssue.maximum);
  const inclusive = zodIssue.inclusive !== false;
  const op = zodIssue.code === 'too_small' ? (inclusive ? '>=' : '>') : inclusive ? '<=' : '<';
  switch (zodIssue.origin) {
    case 'array':
      return `expected ${zodIssue.code === 'too_small' ? 'at least' : 'at most'} ${bound} item(s), got ${describeValue(input)}`;
    case 'string':
      return `expected ${zodIssue.code === 'too_small' ? 'at least' : 'at most'} ${bound} character(s), got ${describeValue(input)}`;
    default:
      return `expected a number ${op} ${bound}, got ${describeValue(input)}`;
  }
}

/** One zod issue may become several of ours (one per unknown key). */
function convert(zodIssue: ZodIssue, schema: ZodType, document: unknown): Issue[] {
  const path = zodIssue.path.filter((key): key is string | number => typeof key !== 'symbol');
  const node = nodeAt(schema, path, document);
  const input = zodIssue.input;
  const isDuration = metaOf(node).format === 'duration';

  switch (zodIssue.code) {
    case 'invalid_type': {
      const expected = expectedType(zodIssue.expected, node);
      if (input === undefined)
        return [issue('required', path, `required: expected ${expected}, got nothing`)];
      const code = isDuration ? 'invalid-duration' : 'invalid-type';
      const hint = isDuration && typeof input === 'number' ? ' (write the unit, e.g. "2s")' : '';
      return [issue(code, path, `expected ${expected}, got ${describeValue(input)}${hint}`)];
    }
    case 'invalid_value': {
      const values = zodIssue.values;
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
        return issue('unknown-key', [...path, key], `unknown key "${key}"${tail}`);
      });
    }
    case 'invalid_union': {
      const withNote = zodIssue as ZodIssue & { note?: string; options?: unknown[] };
      if (withNote.options) {
        if (input === undefined)
          return [
            issue('required', path, `required: expected one of ${quoteAll(withNote.options)}, got nothing`),
          ];
        const suggestion =
          typeof input === 'string'
            ? closest(
                input,
                withNote.options.filter((v): v is string => typeof v === 'string'),
              )
            : undefined;
        const tail = suggestion ? ` (did you mean "${suggestion}"?)` : '';
        return [
          issue(
            'invalid-value',
            path,
            `expected one of ${quoteAll(withNote.options)}, got ${describeValue(input)}${tail}`,
          ),
        ];
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
      if (isDuration)
        return [
          issue('invalid-duration', path, `expected ${DURATION_EXPECTED}, got ${describeValue(input)}`),
        ];
      return [issue('out-of-range', path, rangeMessage(zodIssue, input))];
    case 'invalid_format': {
      if (isDuration)
        return [
          issue('invalid-duration', path, `expected ${DURATION_EXPECTED}, got ${describeValue(input)}`),
        ];
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
    case 'custom': {
      if (isDuration) {
        const positive = (zodIssue.params as { rule?: string } | undefined)?.rule === 'positive-duration';
        const expected = positive ? 'a duration above zero, like "500ms" or "2s"' : DURATION_EXPECTED;
        return [issue('invalid-duration', path, `expected ${expected}, got ${describeValue(input)}`)];
      }
      return [issue('invalid-value', path, `${zodIssue.message}, got ${describeValue(input)}`)];
    }
    default:
      return [issue('invalid-value', path, `${zodIssue.message}, got ${describeValue(input)}`)];
  }
}

export function schemaIssues(issues: readonly ZodIssue[], schema: ZodType, document: unknown): Issue[] {
  // Several checks can fail on one value (a duration fails its pattern and its parse): one
  // message per place is enough, and the first is the most basic.
  const seen = new Set<string>();
  return issues
    .flatMap((each) => convert(each, schema, document))
    .filter((found) => {
      const key = JSON.stringify(found.path);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

export type { IssuePath };
