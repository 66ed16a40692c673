import { type ZodType, z } from 'zod';
import { DURATIONS } from './schema';

/**
 * Finds the schema node that validated a given path of an input document, so error messages can
 * say what was expected there (a duration, which keys exist) without the schema repeating it.
 */

type AnyNode = ZodType & { _zod: { def: Record<string, unknown> & { type: string } } };

function unwrap(node: AnyNode): AnyNode {
  let current = node;
  for (;;) {
    const def = current._zod.def;
    if (def.type === 'optional' || def.type === 'default' || def.type === 'nullable') {
      current = def.innerType as AnyNode;
    } else if (def.type === 'pipe') {
      current = def.in as AnyNode;
    } else {
      return current;
    }
  }
}

function child(node: AnyNode, key: string | number, input: unknown): AnyNode | undefined {
  const bare = unwrap(node);
  const def = bare._zod.def;
  if (def.type === 'object' && typeof key === 'string') {
    const shape = def.shape as Record<string, AnyNode>;
    return Object.hasOwn(shape, key) ? shape[key] : undefined;
  }
  if (def.type === 'array' && typeof key === 'number') return def.element as AnyNode;
  if (def.type === 'union') {
    // No option chosen (a wrong discriminator): nothing to say about the keys below it.
    const option = pickOption(bare, input);
    return option ? child(option, key, input) : undefined;
  }
  return undefined;
}

/** For a discriminated union, the option the input's discriminator selects. */
function pickOption(node: AnyNode, input: unknown): AnyNode | undefined {
  const def = node._zod.def;
  const options = def.options as AnyNode[];
  const discriminator = def.discriminator as string | undefined;
  if (!discriminator || typeof input !== 'object' || input === null) return undefined;
  const wanted = (input as Record<string, unknown>)[discriminator];
  return options.find((option) => {
    const shape = unwrap(option)._zod.def.shape as Record<string, AnyNode> | undefined;
    const literal = shape?.[discriminator];
    const values = literal ? (unwrap(literal)._zod.def.values as unknown[] | undefined) : undefined;
    return values?.includes(wanted);
  });
}

export function valueAt(input: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let current = input;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

export function nodeAt(
  schema: ZodType,
  path: ReadonlyArray<PropertyKey>,
  input: unknown,
): ZodType | undefined {
  let node: AnyNode | undefined = schema as AnyNode;
  for (let depth = 0; depth < path.length && node; depth++) {
    const key = path[depth];
    if (typeof key !== 'string' && typeof key !== 'number') return undefined;
    node = child(node, key, valueAt(input, path.slice(0, depth)));
  }
  return node;
}

export function metaOf(node: ZodType | undefined): Record<string, unknown> {
  return (node && (z.globalRegistry.get(node) as Record<string, unknown> | undefined)) ?? {};
}

/** The keys an object node accepts (for "did you mean"). */
export function keysOf(node: ZodType | undefined, input: unknown): string[] {
  if (!node) return [];
  let bare = unwrap(node as AnyNode);
  if (bare._zod.def.type === 'union') bare = unwrap(pickOption(bare, input) ?? bare);
  const shape = bare._zod.def.shape as Record<string, unknown> | undefined;
  return shape ? Object.keys(shape) : [];
}

/** The fields of an object node (through optional, default and nullable); undefined for any other node. */
export function objectShape(node: ZodType): Record<string, ZodType> | undefined {
  const bare = unwrap(node as AnyNode);
  return bare._zod.def.type === 'object' ? (bare._zod.def.shape as Record<string, ZodType>) : undefined;
}

/** The item node of an array node (through optional, default and nullable). */
export function arrayItem(node: ZodType): ZodType | undefined {
  const bare = unwrap(node as AnyNode);
  return bare._zod.def.type === 'array' ? (bare._zod.def.element as ZodType) : undefined;
}

export function isIntegerNode(node: ZodType | undefined): boolean {
  if (!node) return false;
  const bare = unwrap(node as AnyNode) as AnyNode & { isInt?: boolean; format?: string | null };
  return bare.isInt === true || bare.format === 'safeint';
}

/** The duration registration of a node (through optional and default), if it is a duration. */
export function durationOf(node: ZodType | undefined): { positive: boolean } | undefined {
  let current = node as AnyNode | undefined;
  while (current) {
    const found = DURATIONS.get(current);
    if (found) return found;
    const def = current._zod.def;
    if (def.type === 'optional' || def.type === 'default' || def.type === 'nullable')
      current = def.innerType as AnyNode;
    else return undefined;
  }
  return undefined;
}

/** The bounds a number node declares (not zod's safe-integer bound, which no policy reaches). */
export function numberBounds(node: ZodType | undefined): { min?: number; max?: number } {
  if (!node) return {};
  const bare = unwrap(node as AnyNode) as AnyNode & { minValue?: number | null; maxValue?: number | null };
  if (bare._zod.def.type !== 'number') return {};
  const safe = (value: number | null | undefined) =>
    typeof value === 'number' && Math.abs(value) < Number.MAX_SAFE_INTEGER ? value : undefined;
  const min = safe(bare.minValue);
  const max = safe(bare.maxValue);
  return { ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) };
}
