import { TopologyError } from './errors';

/** A child the specs promised; a missing one means the plan contradicts itself. */
export function mustGet<T>(children: Readonly<Record<string, T>>, key: string): T {
  const found = children[key];
  if (!found) throw new TopologyError('inconsistent-plan', `the plan has no child "${key}"`);
  return found;
}

/** Refuses two children with one logical name (their URNs would collide). */
export function assertUniqueKeys(children: ReadonlyArray<{ key: string }>): void {
  const seen = new Set<string>();
  for (const { key } of children) {
    if (seen.has(key))
      throw new TopologyError('inconsistent-plan', `two children would both be named "${key}"`);
    seen.add(key);
  }
}

/**
 * Keys in an order where each comes after every key in its `after`, otherwise as listed (so the
 * order is stable across runs). A cycle or an unknown key means the plan contradicts itself.
 */
export function creationOrder(children: ReadonlyArray<{ key: string; after: readonly string[] }>): string[] {
  const known = new Set(children.map((child) => child.key));
  for (const { key, after } of children) {
    const unknown = after.find((each) => !known.has(each));
    if (unknown !== undefined)
      throw new TopologyError(
        'inconsistent-plan',
        `child "${key}" waits for "${unknown}", which the plan lacks`,
      );
  }
  const done = new Set<string>();
  const order: string[] = [];
  while (order.length < children.length) {
    const next = children.find(({ key, after }) => !done.has(key) && after.every((each) => done.has(each)));
    if (!next) {
      const stuck = children.filter(({ key }) => !done.has(key)).map(({ key }) => key);
      throw new TopologyError('inconsistent-plan', `children wait for each other: ${stuck.join(', ')}`);
    }
    done.add(next.key);
    order.push(next.key);
  }
  return order;
}

/**
 * A target's identity: for each lasting child, the inputs whose change would replace it, keyed
 * and sorted so equal topologies give equal values; `lasting` lists which lasting children exist.
 */
export function identityOf(
  children: ReadonlyArray<{ key: string; replacedBy: unknown }>,
): Record<string, unknown> {
  const sorted = [...children].sort((a, b) => a.key.localeCompare(b.key));
  return {
    lasting: sorted.map(({ key }) => key),
    inputs: Object.fromEntries(sorted.map(({ key, replacedBy }) => [key, sortKeys(replacedBy)])),
  };
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, inner]) => inner !== undefined)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, inner]) => [key, sortKeys(inner)]),
    );
  }
  return value;
}
