import { UsageError } from './args';
import { EXIT, type Output, safeOutput } from './output';
import { packageVersion } from './version';

type Command = (args: string[], output: Output) => Promise<number>;

/**
 * Every command, by name. A new command is one entry here and one file in commands/. Each is
 * loaded when it runs: `validate` in CI need not load the renderers, the simulator or the broker
 * clients.
 */
const COMMANDS: Record<string, () => Promise<{ run: Command; usage: string }>> = {
  validate: async () => {
    const { validateCommand, VALIDATE_USAGE } = await import('./commands/validate');
    return { run: validateCommand, usage: VALIDATE_USAGE };
  },
  plan: async () => {
    const { planCommand, PLAN_USAGE } = await import('./commands/plan');
    return { run: planCommand, usage: PLAN_USAGE };
  },
  schema: async () => {
    const { schemaCommand, SCHEMA_USAGE } = await import('./commands/schema');
    return { run: schemaCommand, usage: SCHEMA_USAGE };
  },
  diff: async () => {
    const { diffCommand, DIFF_USAGE } = await import('./commands/diff');
    return { run: diffCommand, usage: DIFF_USAGE };
  },
  render: async () => {
    const { renderCommand, RENDER_USAGE } = await import('./commands/render');
    return { run: renderCommand, usage: RENDER_USAGE };
  },
  simulate: async () => {
    const { simulateCommand, SIMULATE_USAGE } = await import('./commands/simulate');
    return { run: simulateCommand, usage: SIMULATE_USAGE };
  },
  'dead-letters': async () => {
    const { deadLettersCommand, DEAD_LETTERS_USAGE } = await import('./commands/dead-letters');
    return { run: (args, output) => deadLettersCommand(args, output), usage: DEAD_LETTERS_USAGE };
  },
};

export async function usage(): Promise<string> {
  const commands = await Promise.all(Object.values(COMMANDS).map((load) => load()));
  return [
    'retry-topology <command>   (retry-topology --version prints the version)',
    ...commands.map((command) => command.usage),
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
    output.out(await usage());
    return name ? EXIT.ok : EXIT.usage;
  }
  // Own entries only: `constructor` or `toString` is not a command.
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    output.err(`✖ unknown command ${JSON.stringify(name)}\n\n${await usage()}`);
    return EXIT.usage;
  }
  const command = await load();
  if (args.includes('--help') || args.includes('-h')) {
    output.out(command.usage);
    return EXIT.ok;
  }
  try {
    return await command.run(args, output);
  } catch (error) {
    // An unknown or malformed option is the user's mistake, not ours.
    if (error instanceof UsageError) {
      output.err(`✖ ${error.message}\n\n${command.usage}`);
      return EXIT.usage;
    }
    output.err(`✖ internal error: ${(error as Error).message ?? String(error)} (please report this)`);
    return EXIT.internal;
  }
}
