import { policyJsonSchema } from '../../policy';
import { EXIT, type Output } from '../output';
import { packageVersion } from '../package-version';

export const SCHEMA_USAGE = `retry-topology schema

  Prints the JSON Schema of a policy document (published as schema/retry-policy.schema.json).`;

/** Where a released copy of the schema stays: jsDelivr serves every file of every npm version. */
export function schemaUrl(version: string): string {
  return `https://cdn.jsdelivr.net/npm/retry-topology@${version}/schema/retry-policy.schema.json`;
}

export async function schemaCommand(_args: string[], output: Output): Promise<number> {
  const schema = { ...policyJsonSchema(), $id: schemaUrl(packageVersion()) };
  output.out(JSON.stringify(schema, null, 2));
  return EXIT.ok;
}
