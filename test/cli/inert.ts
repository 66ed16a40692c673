import { XMLValidator } from 'fast-xml-parser';
import type { Nodes } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { visit } from 'unist-util-visit';

/**
 * What "inert" means for each kind of output, checked with real parsers: a GitHub-flavoured
 * Markdown parser (micromark with GFM: autolink literals, tables) for comments, an XML parser
 * for SVG, and the characters themselves for everything.
 */

/** C0/C1 controls, DEL, bidi overrides and isolates, separators, BOM, XML's non-characters. */
const RAW_CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ufffe\uffff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A raw control character or lone surrogate in any output: a terminal or parser would act on it. */
export function rawControls(text: string): string[] {
  const found: string[] = [];
  for (const char of text) {
    if (RAW_CONTROL.test(char) || LONE_SURROGATE.test(char))
      found.push(`U+${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
  }
  return found;
}

/** The HTML the tool writes itself: the comment marker and folded sections. */
const OUR_HTML = [
  /^<!-- retry-topology diff -->$/,
  /^<\/details>$/,
  /^<details( open)?><summary>[^<>]*<\/summary>$/,
  // A policy's name in a summary: HTML-escaped inside <code>, no markup of its own.
  /^<details( open)?><summary><code>[^<>@]*<\/code>[^<>]*<\/summary>$/,
];

/** Everything in a Markdown comment that is live: links, images, HTML, mentions, references. */
export function liveMarkdown(markdown: string): string[] {
  const tree = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const found: string[] = [];
  visit(tree, (node: Nodes) => {
    switch (node.type) {
      case 'link':
      case 'linkReference':
      case 'image':
      case 'imageReference':
      case 'definition':
      case 'footnoteReference':
      case 'footnoteDefinition':
        found.push(`${node.type}: ${markdown.slice(node.position?.start.offset, node.position?.end.offset)}`);
        break;
      case 'html':
        if (!OUR_HTML.some((allowed) => allowed.test(node.value))) found.push(`html: ${node.value}`);
        break;
      case 'text':
        // GitHub pings @name, links #123 and GH-123 in text (not in code), after Markdown.
        if (/(^|[^\w`])@[A-Za-z0-9]/.test(node.value)) found.push(`mention: ${node.value}`);
        if (/(^|\W)(#|GH-)\d/.test(node.value)) found.push(`reference: ${node.value}`);
        break;
    }
  });
  return found;
}

/** The text inside code spans and code blocks, where user values belong. */
export function codeTexts(markdown: string): string[] {
  const tree = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const found: string[] = [];
  visit(tree, (node: Nodes) => {
    if (node.type === 'inlineCode' || node.type === 'code') found.push(node.value);
  });
  return found;
}

/** XML 1.0 well-formedness of an SVG document: true, or the parser's complaint. */
export function xmlProblem(svg: string): string | undefined {
  const result = XMLValidator.validate(svg);
  return result === true ? undefined : JSON.stringify(result.err);
}
