import { policyJsonSchema } from '../../policy';
import { EXIT, type Output } from '../output';

export const SCHEMA_USAGE = `retry-topology schema

  Prints the JSON Schema of a policy document (published as schema/retry-policy.schema.json).`;

export async function schemaCommand(_args: string[], output: Output): Promise<number> {
  const schema = {
    ...policyJsonSchema(),
    $id: 'https://retry-topology.dev/schema/retry-policy.schema.json',
  };
  output.out(JSON.stringify(schema, null, 2));
  return EXIT.ok;
}
