/**
 * 500 messages with mixed fates, decided by index: what every dead-letter test on a real broker
 * dead-letters through the real runtime, and then counts.
 */
export type Fate = 'currency' | 'type' | 'http' | 'broker';

/** Per ten messages: four invalid currencies, two type errors, three 503s, one broker rejection. */
const CYCLE: Fate[] = [
  'currency',
  'http',
  'type',
  'currency',
  'http',
  'broker',
  'currency',
  'type',
  'http',
  'currency',
];

export const MIX_SIZE = 500;

export function fateOf(index: number): Fate {
  return CYCLE[index % CYCLE.length] as Fate;
}

export function mixIds(fates: Fate[] = ['currency', 'type', 'http', 'broker']): string[] {
  const ids: string[] = [];
  for (let index = 0; index < MIX_SIZE; index++) if (fates.includes(fateOf(index))) ids.push(idOf(index));
  return ids;
}

export function idOf(index: number): string {
  return `m-${String(index).padStart(3, '0')}`;
}

/** Counts of each id, to compare a broker's contents with what should be there. */
export function tally(ids: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

/** Fails with the ids that are missing or extra, so a loss is named, not just counted. */
export function missingAndExtra(seen: Map<string, number>, expected: string[]) {
  const want = new Set(expected);
  return {
    missing: expected.filter((id) => !seen.has(id)),
    extra: [...seen.keys()].filter((id) => !want.has(id)),
    duplicates: [...seen.values()].reduce((sum, count) => sum + count - 1, 0),
  };
}

/** For i < j, copy j was sent no sooner than (j − i − 2) slots after copy i: never faster than asked. */
export function fasterThan(times: number[], perSecond: number, slackMs = 2): Array<[number, number]> {
  const sorted = [...times].sort((a, b) => a - b);
  const slot = 1_000 / perSecond;
  const violations: Array<[number, number]> = [];
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 3; j < sorted.length; j++) {
      if ((sorted[j] as number) - (sorted[i] as number) < (j - i - 2) * slot - slackMs)
        violations.push([i, j]);
    }
  }
  return violations;
}

/** The most times that fall in any one second (a closed window): what "no faster than N/s" bounds. */
export function mostInOneSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last++) {
    while ((sorted[last] as number) - (sorted[first] as number) > 1_000) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}
