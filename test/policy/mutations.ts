import fc from 'fast-check';

/**
 * Breaking a valid policy on purpose: each mutation makes the schema refuse it (a required field
 * removed, a value of the wrong kind, a key the schema does not know), somewhere in the document.
 */

type Path = Array<string | number>;

/** Paths of every leaf in a document, with the leaf's value. */
function leaves(value: unknown, path: Path = []): Array<[Path, unknown]> {
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, inner]) =>
      leaves(inner, [...path, Array.isArray(value) ? Number(key) : key]),
    );
  }
  return [[path, value]];
}

/** Paths of every mapping in a document, the document itself first. */
export function objects(value: unknown, path: Path = []): Path[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return [path, ...Object.entries(value).flatMap(([key, inner]) => objects(inner, [...path, key]))];
}

/** Fields the schema requires; deleting one must be an error. */
export const REQUIRED: Array<Array<string>> = [
  ['apiVersion'],
  ['kind'],
  ['metadata', 'name'],
  ['spec', 'consumer'],
  ['spec', 'maxAttempts'],
  ['spec', 'backoff'],
  ['spec', 'backoff', 'initial'],
  ['spec', 'classify'],
  ['spec', 'idempotency'],
  ['spec', 'targets', 'rabbitmq', 'exchange'],
  ['spec', 'targets', 'rabbitmq', 'brokerVersion'],
  ['spec', 'targets', 'kafka', 'partitions'],
  ['spec', 'targets', 'serviceBus', 'queue'],
];

export function set(
  doc: Record<string, unknown>,
  path: ReadonlyArray<string | number>,
  value: unknown,
  remove = false,
) {
  let node = doc as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (remove) delete node[last];
  else node[last] = value;
}

/** A value of the wrong kind for a leaf: every leaf's schema accepts one JSON type only. */
function wrongKind(original: unknown, pick: number): unknown {
  if (typeof original === 'number')
    return [`${original} apples`, { value: original }, [original], true][pick % 4];
  if (typeof original === 'boolean') return ['yes', 1, null][pick % 3];
  return [42, { text: original }, [original], false, null][pick % 5];
}

type Mutation =
  | { kind: 'delete'; index: number }
  | { kind: 'retype'; index: number; pick: number }
  | { kind: 'extra'; index: number; key: string };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), index: fc.nat() }),
  fc.record({ kind: fc.constant('retype' as const), index: fc.nat(), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('extra' as const),
    index: fc.nat(),
    key: fc
      .string({ minLength: 1, maxLength: 12 })
      .filter((key) => !['__proto__', 'constructor'].includes(key)),
  }),
);

/** A copy of `base` (which has every path in REQUIRED) with the mutations applied in order. */
export function mutate(base: unknown, mutations: Mutation[]): Record<string, unknown> {
  const doc = structuredClone(base) as Record<string, unknown>;
  const leafPaths = leaves(base);
  const objectPaths = objects(base);
  for (const change of mutations) {
    try {
      if (change.kind === 'delete') {
        const path = REQUIRED[change.index % REQUIRED.length] as string[];
        set(doc, path, undefined, true);
      } else if (change.kind === 'retype') {
        const [path, value] = leafPaths[change.index % leafPaths.length] as [Path, unknown];
        set(doc, path, wrongKind(value, change.pick));
      } else {
        const path = objectPaths[change.index % objectPaths.length] as Path;
        let node = doc as Record<string | number, unknown>;
        for (const key of path) node = node[key] as Record<string | number, unknown>;
        // A key the schema does not know at that level (prefixed so it never hits a real one).
        node[`x-${change.key}`] = 'surprise';
      }
    } catch {
      // An earlier mutation removed this path's parent; the earlier one already broke the policy.
    }
  }
  return doc;
}
