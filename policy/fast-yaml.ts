import {
  boolCoreTag,
  constructFromEvents,
  EVENT_ID,
  type Event,
  floatCoreTag,
  getScalarValue,
  intCoreTag,
  NOT_RESOLVED,
  nullCoreTag,
  parseEvents,
  SCALAR_STYLE,
  type ScalarEvent,
} from 'js-yaml';
import type { IssuePath } from './issues';
import type { Position } from './position';

/**
 * Policy files read with js-yaml's event parser, which takes about a third of the `yaml`
 * library's CPU time on policy files (BENCHMARKS.md) and still gives every node its offset, so
 * one parse yields the values and the positions findings need.
 *
 * The `yaml` library stays the reference: its messages, its positions, its reading of YAML. Both
 * read YAML 1.2 with the core schema, but they differ at the edges, so `readFast` gives up
 * (returns undefined, and the caller reads the file with the `yaml` library) wherever they could
 * disagree:
 * - anything js-yaml refuses: a syntax error, a duplicate key, nesting deeper than 100;
 * - tags, directives (`%YAML 1.1`, `%TAG`) and the document end marker `...`; an anchor on a
 *   key, an alias inside an anchored node, more than 50 aliases in a document (alias bombs);
 * - a document that is not a mapping (an empty document, a lone scalar or list);
 * - a plain key that YAML would read as a number, a boolean or null: `yaml` keeps every key as
 *   written (its stringKeys option), js-yaml reads `1.50:` as the key "1.5";
 * - a plain scalar js-yaml keeps as text that could be read as a number: `1e400` is Infinity to
 *   `yaml` and the text "1e400" to js-yaml;
 * - an empty value, and a block scalar (`|`, `>`) anywhere but right after its key's colon: there
 *   js-yaml's offsets are not where `yaml` places them (a block scalar starts at its `|` or `>` to
 *   `yaml`, at its first line of text to js-yaml, so the header is found from the key); a block
 *   scalar with an indentation indicator (`|2`), or in a text with a tab;
 * - a carriage return that does not end a line: `yaml` refuses it, js-yaml takes it as one;
 * - a line of blanks with a tab among them: js-yaml takes it as empty, `yaml` may refuse the
 *   line after it; an anchor run into a flow indicator (`&a{`), which `yaml` refuses;
 * - a line longer than 1,024 characters: `yaml` refuses such a key, js-yaml takes it.
 * test/policy/fast-yaml.test.ts checks both readers give the same findings on fuzzed input.
 */

/** Where a node starts: js-yaml's offsets, moved to where the `yaml` library puts them. */
type FastNode =
  | { kind: 'map'; start: number; pairs: Array<{ key: ScalarEvent; value: FastNode }> }
  | { kind: 'seq'; start: number; items: FastNode[] }
  | { kind: 'scalar'; event: ScalarEvent; header?: number }
  | { kind: 'alias'; start: number };

export interface FastDocument {
  value: unknown;
  /** Line of the document's first node. */
  line: number;
  locate(path: IssuePath, at: 'key' | 'value'): Position | undefined;
}

/**
 * Text where the two disagree before any event is emitted: a carriage return that does not end
 * a line (`yaml` refuses it, js-yaml takes it as a line break), a line starting with `%` (js-yaml
 * skips it as an unknown directive, even indented, where `yaml` reads it or refuses it), the
 * document end marker `...` (`yaml` counts an empty document before it, js-yaml none), and a
 * line of blanks with a tab among them (js-yaml takes it as an empty line, where `yaml` refuses
 * the more indented line after it in a mapping: `a: v\n\t\n a:1`), and an anchor run into a flow
 * indicator (`&a:{a: b}`: js-yaml reads it, `yaml` wants white space after the anchor).
 */
function disputedText(text: string): boolean {
  // One cheap search for each before its pattern: most files hold none of them.
  return (
    (text.includes('\r') && /\r(?!\n)/.test(text)) ||
    (text.includes('%') && /^[ \t]*%/m.test(text)) ||
    (text.includes('...') && /^\.\.\./m.test(text)) ||
    (text.includes('\t') && /^[ \t]*\t[ \t]*$/m.test(text)) ||
    (text.includes('&') && /(?:^|[\s[\]{},])&[^\s[\]{},]*[[\]{},]/m.test(text))
  );
}

const MAX_LINE = 1024;

/**
 * From the end of a key to a block scalar's header on the same line: `key: |`, `"key":   >-`.
 * Not with an indentation indicator (`|2`): the two read the blank lines after it differently.
 */
const TO_BLOCK_HEADER = /[ \t]*:[ \t]+(?=[|>][+-]?(?:[ \t]|\r?\n|$))/y;

/**
 * The offset of a block scalar's `|` or `>`, the mapping value right after the key ending at
 * `keyEnd`; undefined unless its text starts on the very next line, as js-yaml says it does.
 * Undefined too in a text with a tab: `yaml` refuses a block scalar line that starts with one,
 * js-yaml takes it as blank.
 */
function blockHeader(text: string, keyEnd: number, event: ScalarEvent): number | undefined {
  if (text.includes('\t')) return undefined;
  TO_BLOCK_HEADER.lastIndex = keyEnd;
  if (!TO_BLOCK_HEADER.test(text)) return undefined;
  const header = TO_BLOCK_HEADER.lastIndex;
  const lineEnd = text.indexOf('\n', header);
  return (lineEnd < 0 ? text.length : lineEnd + 1) === event.valueStart ? header : undefined;
}

/** Core-schema scalars that are not text; a plain key must resolve to none of them. */
const NOT_TEXT = [nullCoreTag, boolCoreTag, intCoreTag, floatCoreTag];

function isText(source: string): boolean {
  return NOT_TEXT.every((tag) => tag.resolve(source, false, tag.tagName) === NOT_RESOLVED);
}

/**
 * Offsets of each line's first character, to turn an offset into a line and column; undefined
 * when a line is longer than an implicit key may be (1,024 characters in YAML 1.2, which `yaml`
 * enforces and js-yaml does not).
 */
function lineStarts(text: string): number[] | undefined {
  const starts = [0];
  for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) {
    if (index - (starts[starts.length - 1] ?? 0) > MAX_LINE) return undefined;
    starts.push(index + 1);
  }
  return text.length - (starts[starts.length - 1] ?? 0) > MAX_LINE ? undefined : starts;
}

function linePos(starts: readonly number[], offset: number): { line: number; column: number } {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((starts[middle] ?? 0) <= offset) low = middle;
    else high = middle - 1;
  }
  return { line: low + 1, column: offset - (starts[low] ?? 0) + 1 };
}

/**
 * Aliases per document this reader takes. `yaml` refuses a document whose aliases expand past
 * 100 nodes (an alias bomb); with at most this many, each to a node holding no alias, none can.
 */
const MAX_ALIASES = 50;

/** One document's events and what building its tree has counted so far. */
interface Build {
  text: string;
  events: Event[];
  aliases: number;
}

/**
 * The tree of one document's events, or undefined when something in it is outside what this
 * reader vouches for. `events[index]` is the node's first event; `end` is past its last.
 * `keyEnd`: where the key ends when the node is a mapping value. `anchored`: inside a node with
 * an anchor, where an alias is left to `yaml` (aliases inside aliased nodes multiply).
 */
function buildTree(
  build: Build,
  index: number,
  keyEnd?: number,
  anchored = false,
): { node: FastNode; end: number } | undefined {
  const { text, events } = build;
  const event = events[index];
  if (!event) return undefined;
  if (event.type === EVENT_ID.ALIAS) {
    build.aliases++;
    if (anchored || build.aliases > MAX_ALIASES) return undefined;
    // js-yaml's offset is the anchor's name; `yaml` points at the `*` before it.
    return { node: { kind: 'alias', start: event.anchorStart - 1 }, end: index + 1 };
  }
  if (event.type === EVENT_ID.DOCUMENT || event.type === EVENT_ID.POP || event.tagStart >= 0)
    return undefined;
  // An anchor does not move a node's start to `yaml` (it points past the anchor, like js-yaml).
  const inAnchor = anchored || event.anchorStart >= 0;
  switch (event.type) {
    case EVENT_ID.SCALAR: {
      if (event.style === SCALAR_STYLE.LITERAL_BLOCK || event.style === SCALAR_STYLE.FOLDED_BLOCK) {
        const header = keyEnd === undefined ? undefined : blockHeader(text, keyEnd, event);
        return header === undefined ? undefined : { node: { kind: 'scalar', event, header }, end: index + 1 };
      }
      if (event.style === SCALAR_STYLE.PLAIN) {
        if (event.valueStart === event.valueEnd) return undefined;
        const source = getScalarValue(text, event);
        if (isText(source) && !Number.isNaN(Number(source))) return undefined;
      }
      return { node: { kind: 'scalar', event }, end: index + 1 };
    }
    case EVENT_ID.SEQUENCE: {
      const items: FastNode[] = [];
      let next = index + 1;
      while (events[next]?.type !== EVENT_ID.POP) {
        const item = buildTree(build, next, undefined, inAnchor);
        if (!item) return undefined;
        items.push(item.node);
        next = item.end;
      }
      return { node: { kind: 'seq', start: event.start, items }, end: next + 1 };
    }
    case EVENT_ID.MAPPING: {
      const pairs: Array<{ key: ScalarEvent; value: FastNode }> = [];
      let next = index + 1;
      while (events[next]?.type !== EVENT_ID.POP) {
        const key = buildTree(build, next, undefined, inAnchor);
        if (key?.node.kind !== 'scalar') return undefined;
        const keyEvent = key.node.event;
        if (keyEvent.anchorStart >= 0) return undefined;
        if (keyEvent.style === SCALAR_STYLE.PLAIN && !isText(getScalarValue(text, keyEvent)))
          return undefined;
        // A quoted key's valueEnd is its closing quote.
        const keyEnd = keyEvent.style === SCALAR_STYLE.PLAIN ? keyEvent.valueEnd : keyEvent.valueEnd + 1;
        const value = buildTree(build, key.end, keyEnd, inAnchor);
        if (!value) return undefined;
        pairs.push({ key: keyEvent, value: value.node });
        next = value.end;
      }
      return { node: { kind: 'map', start: event.start, pairs }, end: next + 1 };
    }
  }
}

function start(node: FastNode): number {
  if (node.kind !== 'scalar') return node.start;
  if (node.header !== undefined) return node.header;
  // js-yaml's offset is the first character inside the quotes; `yaml` points at the quote.
  return node.event.style === SCALAR_STYLE.PLAIN ? node.event.valueStart : node.event.valueStart - 1;
}

/** The same answer as locate() in locate.ts gives on the `yaml` library's document. */
function locateIn(
  text: string,
  starts: readonly number[],
  root: FastNode,
  path: IssuePath,
  at: 'key' | 'value',
): Position {
  let node: FastNode | undefined = root;
  let keyNode: FastNode | undefined;
  let lastKey: FastNode | undefined;
  let complete = true;
  for (const part of path) {
    if (node?.kind === 'map') {
      const pair: { key: ScalarEvent; value: FastNode } | undefined = node.pairs.find(
        (each) => getScalarValue(text, each.key) === part,
      );
      if (!pair) {
        complete = false;
        break;
      }
      keyNode = { kind: 'scalar', event: pair.key };
      lastKey = keyNode;
      node = pair.value;
    } else if (node?.kind === 'seq' && typeof part === 'number') {
      const item: FastNode | undefined = node.items[part];
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
  const target = (!complete ? (lastKey ?? node) : at === 'key' && keyNode ? keyNode : node) ?? root;
  const { line, column } = linePos(starts, start(target));
  return complete && target.kind === 'scalar'
    ? { line, column, source: getScalarValue(text, target.event) }
    : { line, column };
}

/** Every document of the text with its locator, or undefined: read it with the `yaml` library. */
export function readFast(text: string): FastDocument[] | undefined {
  const starts = lineStarts(text);
  if (!starts || disputedText(text)) return undefined;
  let events: Event[];
  let values: unknown[];
  try {
    events = parseEvents(text, {});
    values = constructFromEvents(events, { source: text });
  } catch {
    return undefined;
  }
  const documents: FastDocument[] = [];
  let index = 0;
  while (index < events.length) {
    const document = events[index];
    if (document?.type !== EVENT_ID.DOCUMENT || document.directives.length > 0) return undefined;
    const tree = buildTree({ text, events, aliases: 0 }, index + 1);
    if (tree?.node.kind !== 'map' || events[tree.end]?.type !== EVENT_ID.POP) return undefined;
    const root = tree.node;
    documents.push({
      value: values[documents.length],
      line: linePos(starts, root.start).line,
      locate: (path, at) => locateIn(text, starts, root, path, at),
    });
    index = tree.end + 1;
  }
  return documents.length === 0 ? undefined : documents;
}
