import { code } from '../format/markdown';

/**
 * What a resource change does to messages, in three words a reviewer can sort by. The
 * classification follows what the components do on `pulumi up` (components/<target>/specs.ts and
 * options.ts): which inputs update in place, which replace (and whether delete comes first),
 * which resources are protected or retained. Identity is the component's child key (role and
 * level), never a name, so a new name for the same role reads as a replacement.
 * - safe: nothing held is touched (a new resource, a setting updated in place).
 * - caution: nothing is lost, but something changes for messages in flight or is left to tidy.
 * - data-loss: messages held by the resource would be lost if the change went through.
 */

export type Risk = 'safe' | 'caution' | 'data-loss';

export type ChangeKind = 'create' | 'update' | 'replace' | 'delete' | 'retain';

export interface ResourceChange {
  kind: string;
  /** The resource's name after the change (before, for a deletion). */
  name: string;
  change: ChangeKind;
  risk: Risk;
  /**
   * What happens, in words, as Markdown: "new wait queue", "policy updated in place: message-ttl
   * `1000` → `2000`". Every name and value in it is a code span (format/markdown.ts).
   */
  note: string;
}

export const RISK_ORDER: Record<Risk, number> = { 'data-loss': 0, caution: 1, safe: 2 };

type Settings = Record<string, string | number | boolean | undefined>;

/** "message-ttl 1000 → 2000, max-length 100000 → (unset)": the keys whose values differ. */
export function settingChanges(before: Settings, after: Settings): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const show = (value: Settings[string]) =>
    value === undefined ? '(unset)' : code(typeof value === 'string' ? JSON.stringify(value) : String(value));
  return keys
    .filter((key) => before[key] !== after[key])
    .map((key) => `${key} ${show(before[key])} → ${show(after[key])}`);
}

/** Pairs two lists by an identity key: the components' child key, so a rename is a replacement. */
export function byKey<T>(items: readonly T[], key: (item: T) => string): Map<string, T> {
  return new Map(items.map((item) => [key(item), item]));
}

/** Every key on either side, with what it names before and after (undefined: not there). */
export function pairsOf<T>(
  before: Map<string, T>,
  after: Map<string, T>,
): Array<{ key: string; was?: T; now?: T }> {
  return [...new Set([...before.keys(), ...after.keys()])].map((key) => ({
    key,
    was: before.get(key),
    now: after.get(key),
  }));
}
