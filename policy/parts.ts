import type { ZodType } from 'zod';
import { RetryTopologyError } from './errors';
import type { IssuePath } from './issues';
import { SEPARATE_ITEMS } from './schema';
import { arrayItem, objectShape } from './schema-walk';

/**
 * A document the schema refused still has parts it accepts: a policy whose RabbitMQ target lacks
 * its brokerVersion has a backoff and a deadline that can be checked. Read part by part, the
 * accepted parts get their defaults as usual and each refused part becomes a field that throws
 * RefusedPart when read. A rule that reads one is skipped (rules/index.ts), so no rule ever sees
 * a value the schema did not accept, and none reports on a guess.
 */

/** Thrown on reading a part of the policy the schema refused. Never reaches a user. */
export class RefusedPart extends RetryTopologyError {
  override readonly name: string = 'RefusedPart';
  constructor(readonly path: IssuePath) {
    super(
      'refused-part',
      `internal: a rule read ${path.join('.') || 'the document'}, which the schema refused`,
    );
  }
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refuse(target: Record<string, unknown>, key: string, path: IssuePath): void {
  Object.defineProperty(target, key, {
    enumerable: true,
    get() {
      throw new RefusedPart(path);
    },
  });
}

/**
 * The input as the schema reads it, except that where it refuses a mapping, the mapping's fields
 * are read one by one, and a refused field throws when read; so does a field left out of a
 * mapping that has an unknown key. The schema checks no field against another, so a field it
 * accepts alone it accepts in the whole document. Throws RefusedPart when nothing at `path` can
 * be read.
 */
export function readParts(schema: ZodType, input: unknown, path: IssuePath = []): unknown {
  const whole = schema.safeParse(input);
  if (whole.success) return whole.data;
  const item = SEPARATE_ITEMS.has(schema) ? arrayItem(schema) : undefined;
  if (item && Array.isArray(input)) {
    return input.flatMap((each) => {
      const parsed = item.safeParse(each);
      return parsed.success ? [parsed.data] : [];
    });
  }
  const shape = objectShape(schema);
  if (!shape || !isMapping(input)) throw new RefusedPart(path);
  // A key the schema does not know may be one of its fields misspelt: then a field left out
  // beside it is not read as its default, which would be a guess at what was meant.
  const misspelt = Object.keys(input).some((key) => !Object.hasOwn(shape, key));
  const out: Record<string, unknown> = {};
  for (const [key, node] of Object.entries(shape)) {
    const at = [...path, key];
    if (misspelt && input[key] === undefined) {
      refuse(out, key, at);
      continue;
    }
    try {
      out[key] = readParts(node, input[key], at);
    } catch (error) {
      if (!(error instanceof RefusedPart)) throw error;
      refuse(out, key, at);
    }
  }
  return out;
}
