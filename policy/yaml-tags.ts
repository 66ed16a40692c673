import { type Document, isPair, isScalar, isSeq, type Node, type Pair, Schema, visit } from 'yaml';
import { type Issue, type IssuePath, issue } from './issues';

/**
 * Explicit YAML tags. The YAML 1.2 core schema's own (`!!str`, `!!int`, `!!float`, `!!bool`,
 * `!!null`, `!!map`, `!!seq`) only say what the value is read as, and are allowed. Any other is a
 * finding: the `yaml` library keeps the value of a tag it does not know (`!!js/function "…"`,
 * `!local x`) and drops the tag with no more than a warning, so the file would pass while meaning
 * something to its author that this tool never saw; and the tags it does know beyond the core
 * schema (`!!binary`, `!!timestamp`, `!!set`, …) make values no policy field takes.
 */

const CORE_TAGS_TEXT = '!!str, !!int, !!float, !!bool, !!null, !!map, !!seq';

let coreTags: ReadonlySet<string> | undefined;

/** The core schema's tags as the library names them (`tag:yaml.org,2002:str`, …). */
function supported(): ReadonlySet<string> {
  coreTags ??= new Set(new Schema({ schema: 'core' }).tags.map((tag) => tag.tag));
  return coreTags;
}

/** The path of a node from the document's ancestors the visitor passes. */
function pathOf(ancestors: ReadonlyArray<Document | Node | Pair>, node: Node): IssuePath {
  const chain = [...ancestors, node];
  const path: Array<string | number> = [];
  chain.forEach((each, index) => {
    if (isSeq(each)) path.push(each.items.indexOf(chain[index + 1] as never));
    else if (isPair(each) && isScalar(each.key)) path.push(String(each.key.value));
  });
  return path;
}

/** One finding for each node with a tag outside the core schema, at the node's path. */
export function unsupportedTags(document: Document): Issue[] {
  const allowed = supported();
  const out: Issue[] = [];
  visit(document, {
    Node(_key, node, ancestors) {
      if (node.tag === undefined || allowed.has(node.tag)) return;
      const written = document.directives?.tagString(node.tag) ?? node.tag;
      out.push(
        issue(
          'unsupported-tag',
          pathOf(ancestors, node),
          `the YAML tag ${written} is not supported (only the core schema's ${CORE_TAGS_TEXT}): remove it`,
        ),
      );
    },
  });
  return out;
}
