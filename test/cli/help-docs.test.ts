import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { helpText } from '../../cli/help';
import { writtenDocs } from '../../cli/help-docs';
import { commandHelps, run } from '../../cli/run';

const ROOT = join(__dirname, '..', '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const cli = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8');

async function help(name: string): Promise<string> {
  const printed: string[] = [];
  const code = await run([name, '--help'], { out: (text) => printed.push(text), err: () => undefined });
  expect(code).toBe(0);
  return printed.join('');
}

describe("every command's help, one source for --help and the docs", () => {
  it('README.md and docs/cli.md hold the synopses and the help as the commands give them (npm run docs:cli)', async () => {
    const written = writtenDocs(await commandHelps(), { readme, cli });
    expect(readme).toBe(written.readme);
    expect(cli).toBe(written.cli);
  });

  it('--help prints the options and the exit codes of each command, as docs/cli.md has them', async () => {
    for (const [name, source] of await commandHelps()) {
      const printed = await help(name);
      expect(printed).toBe(helpText(source));
      expect(printed).toMatch(/\nExit codes:\n/);
      expect(cli).toContain(printed);
      // Every command can fail on its command line, and on a bug of ours.
      expect(source.exits.map(([code]) => code)).toEqual(expect.arrayContaining([0, 2, 3]));
    }
  });

  it('the exit status table of docs/cli.md lists exactly the codes the commands give', async () => {
    const table = cli.slice(cli.indexOf('## Exit status'), cli.indexOf('## Inputs'));
    const documented = [...table.matchAll(/^\| (\d+) \|/gm)].map((match) => Number(match[1]));
    const given = new Set((await commandHelps()).flatMap(([, source]) => source.exits.map(([code]) => code)));
    expect(new Set(documented)).toEqual(given);
  });

  it('render and simulate name --policy and --target in their synopsis, as their errors ask for them', async () => {
    const helps = new Map(await commandHelps());
    for (const name of ['render', 'simulate']) {
      const synopsis = helps.get(name)?.usage.split('\n\n')[0] ?? '';
      expect(synopsis).toContain('--policy <name>');
      expect(synopsis).toContain('--target rabbitmq|kafka|servicebus');
    }
  });
});
