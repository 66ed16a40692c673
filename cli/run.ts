import { DEAD_LETTERS_USAGE, deadLettersCommand } from './commands/dead-letters';
import { DIFF_USAGE, diffCommand } from './commands/diff';
import { PLAN_USAGE, planCommand } from './commands/plan';
import { RENDER_USAGE, renderCommand } from './commands/render';
import { SCHEMA_USAGE, schemaCommand } from './commands/schema';
import { SIMULATE_USAGE, simulateCommand } from './commands/simulate';
import { VALIDATE_USAGE, validateCommand } from './commands/validate';
import { EXIT, type Output, safeOutput } from './output';
import { packageVersion } from './version';

type Command = (args: string[], output: Output) => Promise<number>;

/** Every command, by name. A new command is one entry here and one file in commands/. */
const COMMANDS: Record<string, { run: Command; usage: string }> = {
  validate: { run: validateCommand, usage: VALIDATE_USAGE },
  plan: { run: planCommand, usage: PLAN_USAGE },
  schema: { run: schemaCommand, usage: SCHEMA_USAGE },
  diff: { run: diffCommand, usage: DIFF_USAGE },
  render: { run: renderCommand, usage: RENDER_USAGE },
  simulate: { run: simulateCommand, usage: SIMULATE_USAGE },
  'dead-letters': { run: (args, output) => deadLettersCommand(args, output), usage: DEAD_LETTERS_USAGE },
};

export function usage(): string {
  return [
    'retry-topology <command>   (retry-topology --version prints the version)',
    ...Object.values(COMMANDS).map((command) => command.usage),
  ].join('\n\n');
}

/** Runs one command line. Never throws: user mistakes get a message and an exit code. */
export async function run(argv: string[], raw: Output): Promise<number> {
  const output = safeOutput(raw);
  const [name, ...args] = argv;
  if (name === '--version' || name === '-V' || name === 'version') {
    output.out(packageVersion());
    return EXIT.ok;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    output.out(usage());
    return name ? EXIT.ok : EXIT.usage;
  }
  const command = COMMANDS[name];
  if (!command) {
    output.err(`✖ unknown command ${JSON.stringify(name)}\n\n${usage()}`);
    return EXIT.usage;
  }
  if (args.includes('--help') || args.includes('-h')) {
    output.out(command.usage);
    return EXIT.ok;
  }
  try {
    return await command.run(args, output);
  } catch (error) {
    // parseArgs reports unknown or malformed options with a code; that is the user's mistake.
    const code = (error as { code?: string }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      output.err(`✖ ${(error as Error).message}\n\n${command.usage}`);
      return EXIT.usage;
    }
    output.err(`✖ internal error: ${(error as Error).message ?? String(error)} (please report this)`);
    return EXIT.internal;
  }
}
