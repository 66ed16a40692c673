// The floor for `retry-topology validate`: what a user would write by hand to read the same policy
// files with the same YAML library, in one Node process. Finds the .yaml and .yml files under a
// directory, reads each and parses every document in it into plain values with the `yaml`
// library, and prints how many documents it read. No schema, no rules, no positions, no output
// beyond one line: what is left of validate's time above this is the price of its checks.
//
//   node bench/cli/parse-floor.cjs <dir>
'use strict';
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { parseAllDocuments } = require('yaml');

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node bench/cli/parse-floor.cjs <dir>');
  process.exit(2);
}
let documents = 0;
let errors = 0;
const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.yaml') || name.endsWith('.yml'))
  .sort();
for (const name of files) {
  const text = readFileSync(join(dir, name), 'utf8');
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) errors++;
    if (document.toJS() !== null) documents++;
  }
}
console.log(`${documents} documents in ${files.length} files read, ${errors} with YAML errors`);
process.exit(errors === 0 ? 0 : 1);
