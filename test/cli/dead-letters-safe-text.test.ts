import { describe, expect, it } from 'vitest';
import { previewBody, safeLines, safeText } from '../../cli/dead-letters/safe-text';

/** Anything in the C0/C1 ranges but newline and tab, DEL, or what reorders or breaks lines. */
function unsafe(text: string): string[] {
  const layout = [
    0x061c, 0x200e, 0x200f, 0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068,
    0x2069,
  ];
  return [...text].filter((char) => {
    const code = char.charCodeAt(0);
    return (
      (code < 0x20 && code !== 0x0a && code !== 0x09) ||
      (code >= 0x7f && code <= 0x9f) ||
      layout.includes(code)
    );
  });
}

describe('text from a message, as a terminal shows it', () => {
  it('escapes terminal escapes, C1 controls and bidirectional overrides, and keeps the rest', () => {
    const hostile = 'ok \u001b]0;pwned\u0007\u001b[31mred \u009b2J \u202eevil\u202c é 日本';
    const safe = safeText(hostile);
    expect(safe).toBe('ok \\x1b]0;pwned\\x07\\x1b[31mred \\x9b2J \\u202eevil\\u202c é 日本');
    expect(unsafe(safe)).toEqual([]);
    expect(safeText('a\nb\tc')).toBe('a\\nb\\tc');
    expect(safeLines('a\nb\tc\rd')).toBe('a\nb\tc\\rd');
  });

  it('escapes what a terminal, an annotation or an XML file cannot show as itself: BOM, U+FFFF, lone surrogates', () => {
    expect(safeText('\ufeffa\uffffb\ud800c\udc00d')).toBe('\\ufeffa\\uffffb\\ud800c\\udc00d');
    // A surrogate pair is one character, and kept.
    expect(safeText('😀')).toBe('😀');
  });

  it('shows text bodies as text and anything else as a hex dump', () => {
    const text = previewBody(Buffer.from('{"id":"m-1"}\n\u001b[2Jmore'), 100);
    expect(text).toMatchObject({ kind: 'text', truncated: false, lines: ['{"id":"m-1"}', '\\x1b[2Jmore'] });
    const binary = previewBody(Buffer.from([0xff, 0xfe, 0x1b, 0x5b, 0x32, 0x4a, 0x41]), 100);
    expect(binary.kind).toBe('binary');
    expect(binary.lines).toEqual(['00000000  ff fe 1b 5b 32 4a 41                             |...[2JA|']);
    expect(unsafe(binary.lines.join('\n'))).toEqual([]);
    const cut = previewBody(Buffer.from('é'.repeat(10)), 5);
    expect(cut).toMatchObject({ kind: 'text', truncated: true, lines: ['éé'] });
  });

  it('treats valid UTF-8 that is mostly control characters as binary', () => {
    expect(previewBody(Buffer.from('\u0001\u0002\u0003\u0004abc'), 100).kind).toBe('binary');
  });
});
