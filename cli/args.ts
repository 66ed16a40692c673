import { type ParseArgsConfig, parseArgs } from 'node:util';

type Option = { type: 'string' | 'boolean'; default?: string | boolean; multiple?: boolean };
type Options = Record<string, Option>;

export interface ParsedArgs<T extends Options> {
  values: {
    [K in keyof T]: T[K]['type'] extends 'boolean'
      ? T[K]['default'] extends boolean
        ? boolean
        : boolean | undefined
      : T[K]['multiple'] extends true
        ? string[] | undefined
        : T[K]['default'] extends string
          ? string
          : string | undefined;
  };
  positionals: string[];
}

/** A command line the parser cannot read: one line, said to the user with the command's usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * node:util parseArgs, except that an option's value may start with one dash when written as the
 * next word (`--rate -5`, `--policy -x`, `--archive -old.jsonl`): parseArgs alone calls that
 * ambiguous and stops with three lines of its own, before the command can say what is wrong
 * with the value. Here the word is the value, and the command judges it exactly as it judges
 * `--rate=-5`. A next word with two dashes is an option, so `--policy --format json` says
 * --policy has no value instead of taking "--format" for a policy name. Every error is one line.
 */
export function parseCommandArgs<T extends Options>(args: readonly string[], options: T): ParsedArgs<T> {
  const joined: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? '';
    if (arg === '--') {
      joined.push(...args.slice(index));
      break;
    }
    const next = args[index + 1];
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    const takesValue = name !== undefined && Object.hasOwn(options, name) && options[name]?.type === 'string';
    if (takesValue && next?.startsWith('--')) throw new UsageError(`${arg} needs a value before ${next}`);
    if (takesValue && next?.startsWith('-')) {
      joined.push(`${arg}=${next}`);
      index++;
    } else joined.push(arg);
  }
  try {
    const parsed = parseArgs({
      args: joined,
      allowPositionals: true,
      strict: true,
      options: options as NonNullable<ParseArgsConfig['options']>,
    });
    return parsed as unknown as ParsedArgs<T>;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      // Node's messages are one line, save the ambiguity one that the loop above forestalls.
      const [line = ''] = (error as Error).message.split('\n');
      throw new UsageError(line, { cause: error });
    }
    throw error;
  }
}
