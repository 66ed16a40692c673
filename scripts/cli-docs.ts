// Writes the CLI's synopses and every command's --help into README.md and docs/cli.md
// (cli/help-docs.ts): `npm run docs:cli` after changing a command's help.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writtenDocs } from '../cli/help-docs';
import { commandHelps } from '../cli/run';

const root = join(__dirname, '..');
const files = { readme: join(root, 'README.md'), cli: join(root, 'docs', 'cli.md') };

async function main(): Promise<void> {
  const written = writtenDocs(await commandHelps(), {
    readme: readFileSync(files.readme, 'utf8'),
    cli: readFileSync(files.cli, 'utf8'),
  });
  writeFileSync(files.readme, written.readme);
  writeFileSync(files.cli, written.cli);
}

void main();
