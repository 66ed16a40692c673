/**
 * Text from a policy file reaches terminals, pull-request comments, workflow annotations and SVG
 * files. Characters that would act there instead of being shown are written as escapes: C0 and C1
 * controls (a terminal runs ESC sequences), DEL, the bidirectional overrides and isolates that
 * reorder what a reviewer reads, line and paragraph separators, the byte-order mark, the
 * characters XML 1.0 forbids (U+FFFE, U+FFFF) and lone surrogates.
 */

const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escaping control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function escapeChar(char: string): string {
  return `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`;
}

/**
 * Every unsafe character as `\u001b`, or as `escapeWith` writes it; `keep` lists characters to leave
 * (our own "\n").
 */
export function printable(
  text: string,
  keep = '',
  escapeWith: (char: string) => string = escapeChar,
): string {
  return text.replace(UNSAFE, (char) => (keep.includes(char) ? char : escapeWith(char)));
}

/** Whether a text has any character printable() would escape (besides those in `keep`). */
export function hasUnsafeCharacters(text: string, keep = ''): boolean {
  UNSAFE.lastIndex = 0;
  for (const match of text.matchAll(UNSAFE)) if (!keep.includes(match[0])) return true;
  return false;
}

/**
 * JSON with every unsafe character as a \u escape. JSON.stringify escapes C0 controls and lone
 * surrogates itself, but leaves DEL, C1 controls and the bidi characters raw.
 */
export function safeJson(value: unknown, indent = 2): string {
  // The only raw newlines JSON.stringify writes are its own indentation.
  return printable(JSON.stringify(value, null, indent), '\n');
}
