import { type Issue, issue } from './issues';

/**
 * A policy file's bytes as text, or one located finding saying why they are not text YAML can
 * read. Node's own decoding would replace bad bytes with U+FFFD, which would then reach the plan
 * and the broker names; a binary file would give thousands of YAML errors instead of one.
 */

const BOM = '\ufeff';

/** The offset of the first byte that is not part of well-formed UTF-8, or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index] ?? 0;
    if (lead < 0x80) {
      index++;
      continue;
    }
    // Length and the allowed range of the second byte (RFC 3629: no overlongs, no surrogates).
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return index;
    for (let next = 1; next < length; next++) {
      const byte = bytes[index + next];
      if (byte === undefined) return index;
      const [min, max] = next === 1 ? [low, high] : [0x80, 0xbf];
      if (byte < min || byte > max) return index;
    }
    index += length;
  }
  return -1;
}

/** Line and column (in characters) of a byte offset in bytes that are valid UTF-8 before it. */
function position(bytes: Uint8Array, offset: number): { line: number; column: number } {
  const before = Buffer.from(bytes.buffer, bytes.byteOffset, offset).toString('utf8');
  const lineStart = before.lastIndexOf('\n') + 1;
  let line = 1;
  for (let index = 0; index < lineStart; index++) if (before.charCodeAt(index) === 10) line++;
  return { line, column: [...before.slice(lineStart)].length + 1 };
}

/** YAML 1.2 allows tab, line feed and carriage return, and no other control character, raw. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

function located(file: string, message: string, at: { line: number; column: number }): Issue {
  return { ...issue('invalid-encoding', [], message), file, line: at.line, column: at.column };
}

export function decodePolicyBytes(bytes: Uint8Array, file: string): { text: string } | { issue: Issue } {
  const start = { line: 1, column: 1 };
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    return { issue: located(file, 'the file is UTF-16 text; save it as UTF-8', start) };
  const invalid = firstInvalidUtf8(bytes);
  if (invalid >= 0) {
    const byte = (bytes[invalid] ?? 0).toString(16).toUpperCase().padStart(2, '0');
    return {
      issue: located(
        file,
        `byte 0x${byte} is not UTF-8: expected a UTF-8 text file (is it Latin-1, or binary?)`,
        position(bytes, invalid),
      ),
    };
  }
  let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (text.startsWith(BOM)) text = text.slice(1);
  const control = FORBIDDEN.exec(text);
  if (control) {
    const before = text.slice(0, control.index);
    const lineStart = before.lastIndexOf('\n') + 1;
    const line = before.split('\n').length;
    const code = (control[0].codePointAt(0) ?? 0).toString(16).padStart(4, '0');
    const message =
      code === '0000'
        ? 'a NUL byte: expected a text file'
        : `control character U+${code.toUpperCase()}: YAML allows only printable characters (write "\\u${code}" in a double-quoted string to mean it)`;
    return { issue: located(file, message, { line, column: [...before.slice(lineStart)].length + 1 }) };
  }
  return { text };
}
