/**
 * Text from a message (headers, bodies, error messages) is someone else's input: printed raw, an
 * escape sequence could retitle the terminal, hide lines or fake output. Everything a human
 * reads goes through here: the characters policy/printable.ts escapes (C0 and C1 controls, DEL,
 * bidirectional overrides and isolates, line and paragraph separators, the byte-order mark, lone
 * surrogates) become visible escapes such as `\x1b` and `\u202e`.
 */
import { printable } from '../../policy/printable';

/** The short escapes a reader knows (`\n`, `\x1b`); `\u202e` past the first 256 code points. */
function escaped(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  if (code === 0x0a) return '\\n';
  if (code === 0x09) return '\\t';
  if (code === 0x0d) return '\\r';
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One line of safe text: every control character escaped, newlines and tabs included. */
export function safeText(text: string): string {
  return printable(text, '', escaped);
}

/** Safe text that keeps its newlines and tabs (a body preview). */
export function safeLines(text: string): string {
  return printable(text, '\n\t', escaped);
}

/** Share of characters that are controls other than newline, tab and carriage return. */
function controlShare(text: string): number {
  if (text.length === 0) return 0;
  let controls = 0;
  for (const char of text) {
    const code = char.charCodeAt(0);
    if ((code < 0x20 && code !== 0x0a && code !== 0x09 && code !== 0x0d) || code === 0x7f) controls++;
  }
  return controls / text.length;
}

/** Above this share of control characters, valid UTF-8 is shown as bytes, not as text. */
const BINARY_CONTROL_SHARE = 0.1;

export interface BodyPreview {
  kind: 'text' | 'binary' | 'empty';
  bytes: number;
  /** Lines to print, already safe. */
  lines: string[];
  truncated: boolean;
}

/** A body as a terminal may show it: UTF-8 text escaped, anything else as a hex dump. */
export function previewBody(body: Buffer, maxBytes: number): BodyPreview {
  if (body.length === 0) return { kind: 'empty', bytes: 0, lines: [], truncated: false };
  const shown = body.subarray(0, maxBytes);
  const truncated = body.length > shown.length;
  let text: string | undefined;
  try {
    // A cut can split a multi-byte character at the end: decode the whole body to judge it.
    new TextDecoder('utf-8', { fatal: true }).decode(body);
    text = new TextDecoder('utf-8').decode(shown).replace(/\ufffd$/, '');
  } catch {
    text = undefined;
  }
  if (text !== undefined && controlShare(text) <= BINARY_CONTROL_SHARE) {
    return { kind: 'text', bytes: body.length, lines: safeLines(text).split('\n'), truncated };
  }
  return { kind: 'binary', bytes: body.length, lines: hexDump(shown), truncated };
}

function hexDump(bytes: Buffer): string[] {
  const lines: string[] = [];
  for (let offset = 0; offset < bytes.length; offset += 16) {
    const row = bytes.subarray(offset, offset + 16);
    const hex = [...row].map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
    const ascii = [...row]
      .map((byte) => (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : '.'))
      .join('');
    lines.push(`${offset.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  |${ascii}|`);
  }
  return lines;
}
