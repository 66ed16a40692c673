import { z } from 'zod';
import { PolicySchema } from './schema';

/**
 * The JSON Schema of a policy document, as published in schema/retry-policy.schema.json (without
 * its `$id`). Typed as plain JSON so the public declarations name no validator library.
 */
export function policyJsonSchema(): Record<string, unknown> {
  // Draft-07: the dialect yaml-language-server and most editors understand fully.
  return z.toJSONSchema(PolicySchema, { io: 'input', unrepresentable: 'any', target: 'draft-7' }) as Record<
    string,
    unknown
  >;
}
