import { UsageError } from './args';
import { type CommandHelp, helpText } from './help';
import { EXIT, type Output, safeOutput } from './output';
import { packageVersion } from './version';

type Command = (args: string[], output: Output) => Promise<number>;

/**
 * Every command, by name. A new command is one entry here and one file in commands/. Each is
 * loaded when it runs: `validate` in CI need not load the renderers, the simulator or the broker
 * clients.
 */
const COMMANDS: Record<string, () => Promise<{ run: Command; help: CommandHelp }>> = {
  validate: async () => {
    const { validateCommand, VALIDATE_HELP } = await import('./commands/validate');
    return { run: validateCommand, help: VALIDATE_HELP };
  },
  plan: async () => {
    const { planCommand, PLAN_HELP } = await import('./commands/plan');
    return { run: planCommand, help: PLAN_HELP };
  },
  schema: async () => {
    const { schemaCommand, SCHEMA_HELP } = await import('./commands/schema');
    return { run: schemaCommand, help: SCHEMA_HELP };
  },
  diff: async () => {
    const { diffCommand, DIFF_HELP } = await import('./commands/diff');
    return { run: diffCommand, help: DIFF_HELP };
  },
  render: async () => {
    const { renderCommand, RENDER_HELP } = await import('./commands/render');
    return { run: renderCommand, help: RENDER_HELP };
  },
  simulate: async () => {
    const { simulateCommand, SIMULATE_HELP } = await import('./commands/simulate');
    return { run: simulateCommand, help: SIMULATE_HELP };
  },
  'dead-letters': async () => {
    const { deadLettersCommand, DEAD_LETTERS_HELP } = await import('./commands/dead-letters');
    return { run: (args, output) => deadLettersCommand(args, output), help: DEAD_LETTERS_HELP };
  },
};

/** Every command's help, by name, in the order of the top-level help. */
export async function commandHelps(): Promise<Array<[name: string, help: CommandHelp]>> {
  const names = Object.keys(SUMMARIES);
  return Promise.all(
    names.map(
      async (name) =>
        [name, (await (COMMANDS[name] as () => Promise<{ help: CommandHelp }>)()).help] as [
          string,
          CommandHelp,
        ],
    ),
  );
}

/** One line per command for the top-level help; `<command> --help` gives the details. */
const SUMMARIES: Record<keyof typeof COMMANDS, string> = {
  validate: 'check policy files: the schema, every rule, and what spans policies',
  plan: 'print what a policy becomes on each broker: timeline, resources, findings',
  schema: 'print the JSON Schema of a policy document',
  diff: 'compare two sets of policies, as Markdown for a pull-request comment',
  render: "draw a policy's attempt timeline or topology (Mermaid or SVG)",
  simulate: 'what a dependency sees when it comes back from an outage',
  'dead-letters': 'list, show, replay or purge the dead letters of a policy on a broker',
};

const DOCS = 'https://github.com/retry-topology/retry-topology#readme';

export function usage(): string {
  const width = Math.max(...Object.keys(SUMMARIES).map((name) => name.length));
  return [
    'retry-topology <command> [options]',
    '',
    'Commands:',
    ...Object.entries(SUMMARIES).map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`),
    '',
    "retry-topology <command> --help    the command's options and exit codes",
    'retry-topology --version, -v       the version',
    `Docs: ${DOCS}`,
  ].join('\n');
}

/** Runs one command line. Never throws: user mistakes get a message and an exit code. */
export async function run(argv: string[], raw: Output): Promise<number> {
  const output = safeOutput(raw);
  const [name, ...args] = argv;
  if (name === '--version' || name === '-v' || name === '-V' || name === 'version') {
    output.out(packageVersion());
    return EXIT.ok;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    output.out(usage());
    return name ? EXIT.ok : EXIT.usage;
  }
  // Own entries only: `constructor` or `toString` is not a command.
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    output.err(`✖ unknown command ${JSON.stringify(name)}\n\n${usage()}`);
    return EXIT.usage;
  }
  const command = await load();
  if (args.includes('--help') || args.includes('-h')) {
    output.out(helpText(command.help));
    return EXIT.ok;
  }
  try {
    return await command.run(args, output);
  } catch (error) {
    // An unknown or malformed option is the user's mistake, not ours.
    if (error instanceof UsageError) {
      output.err(`✖ ${error.message}\n  retry-topology ${name} --help shows every option`);
      return EXIT.usage;
    }
    output.err(`✖ internal error: ${(error as Error).message ?? String(error)} (please report this)`);
    return EXIT.internal;
  }
}
