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
