import { type Document, isMap, isScalar, isSeq, type LineCounter, type Node } from 'yaml';
import type { IssuePath } from './issues';
import type { Position } from './position';

export type { Position } from './position';

/**
 * The line and column of a path in a YAML document. A path that does not exist (a missing
 * field) resolves to the key of its nearest existing parent, which is where the field belongs.
 */
export function locate(
  document: Document,
  lineCounter: LineCounter,
  path: IssuePath,
  at: 'key' | 'value',
): Position | undefined {
  let node: Node | null | undefined = document.contents as Node | null;
  let keyNode: Node | undefined;
  let lastKey: Node | undefined;
  let complete = true;
  for (const part of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && item.key.value === part);
      if (!pair) {
        complete = false;
        break;
      }
      keyNode = pair.key as Node;
      lastKey = keyNode;
      node = pair.value as Node | null;
    } else if (isSeq(node) && typeof part === 'number') {
      const item = node.items[part] as Node | undefined;
      if (!item) {
        complete = false;
        break;
      }
      keyNode = undefined;
      node = item;
    } else {
      complete = false;
      break;
    }
  }
  const target = !complete ? (lastKey ?? node) : at === 'key' && keyNode ? keyNode : (node ?? keyNode);
  const offset = target?.range?.[0];
  if (offset === undefined) return undefined;
  const { line, col } = lineCounter.linePos(offset);
  const source =
    complete && isScalar(target) && typeof target.source === 'string' ? target.source : undefined;
  return { line, column: col, ...(source === undefined ? {} : { source }) };
}
