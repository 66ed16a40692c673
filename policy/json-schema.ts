import { z } from 'zod';
import { PolicySchema } from './schema';

/**
 * What an editor says when a value does not match a `pattern`, by pattern. yaml-language-server
 * (and VS Code's JSON service) show `patternErrorMessage` instead of "does not match the pattern
 * of <regular expression>". Every pattern of the schema must be here: a test checks it.
 */
const PATTERN_MESSAGES: Record<string, string> = {
  '^(\\d+(\\.\\d+)?(ms|s|m|h|d))+$': 'a duration like "500ms", "2s" or "1m30s" (units ms, s, m, h, d)',
  '^(?!(0+(\\.0+)?(ms|s|m|h|d))+$)(\\d+(\\.\\d+)?(ms|s|m|h|d))+$':
    'a duration above zero like "500ms", "2s" or "1m30s" (units ms, s, m, h, d)',
  '^[A-Za-z0-9][A-Za-z0-9._-]*$': 'letters, digits, ".", "_" and "-", starting with a letter or digit',
  '^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$':
    'lowercase letters, digits, ".", "_" and "-", starting and ending with a letter or digit',
  '^\\d+\\.\\d+(\\.\\d+)?$': 'a version like "3.13" or "4.0.5", quoted so YAML keeps it text',
  '\\S': 'a reason: some text, not only spaces',
};

/** Adds `patternErrorMessage` beside every `pattern`, in place. */
function withPatternMessages(node: unknown): void {
  if (Array.isArray(node)) {
    for (const each of node) withPatternMessages(each);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  if (typeof record.pattern === 'string' && PATTERN_MESSAGES[record.pattern] !== undefined)
    record.patternErrorMessage = PATTERN_MESSAGES[record.pattern];
  for (const value of Object.values(record)) withPatternMessages(value);
}

/**
 * The JSON Schema of a policy document, as published in schema/retry-policy.schema.json (without
 * its `$id`). Typed as plain JSON so the public declarations name no validator library.
 */
export function policyJsonSchema(): Record<string, unknown> {
  // Draft-07: the dialect yaml-language-server and most editors understand fully.
  const schema = z.toJSONSchema(PolicySchema, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-7',
  }) as Record<string, unknown>;
  withPatternMessages(schema);
  return schema;
}
