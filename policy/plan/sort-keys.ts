/** A deep copy with object keys in sorted order, so printed plans diff line by line. */
export function sortKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortKeys) as T;
  if (value !== null && typeof value === 'object') {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const inner = (value as Record<string, unknown>)[key];
      if (inner !== undefined) sorted[key] = sortKeys(inner);
    }
    return sorted as T;
  }
  return value;
}
