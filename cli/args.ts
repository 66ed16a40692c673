import { type ParseArgsConfig, parseArgs } from 'node:util';
import { RetryTopologyError } from '../policy/errors';

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

/**
 * A mistake in the command line (an unknown option, a bad value, a missing argument, a --policy
 * or --target the input does not have): one line, exit 2. Commands throw it; run() says it with
 * where the options are. Its code is `usage`, save in dead-letters, whose errors show a code:
 * there it is the code its docs list (`invalid-option`, `invalid-filter`, `no-target`).
 */
export class UsageError extends RetryTopologyError {
  override readonly name: string = 'UsageError';
  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(
      options?.code ?? 'usage',
      message,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
  }
}

/**
 * The option's value when it is one of `accepted`, else a UsageError that names the option, what
 * it got and what it takes: `--format "xml" is not one of text, json, github`.
 */
export function oneOf<T extends string>(option: string, value: string, accepted: readonly T[]): T {
  const found = accepted.find((each) => each === value);
  if (found === undefined)
    throw new UsageError(`--${option} ${JSON.stringify(value)} is not one of ${accepted.join(', ')}`);
  return found;
}

/** A whole number of at least `min`, else a UsageError naming the option and the bound. */
export function wholeNumber(option: string, value: string, min: number): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isSafeInteger(number) || number < min)
    throw new UsageError(`--${option} ${JSON.stringify(value)} is not a whole number of at least ${min}`);
  return number;
}

/** The positionals when there are between `min` and `max` of them, else a UsageError saying what is wanted. */
export function positionalCount(positionals: string[], min: number, max: number, what: string): string[] {
  if (positionals.length < min) throw new UsageError(`missing ${what}`);
  if (positionals.length > max)
    throw new UsageError(
      `one ${what} only, got ${positionals.length}: ${positionals.map((each) => JSON.stringify(each)).join(' ')}`,
    );
  return positionals;
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
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      // Node's text goes on about positionals that start with a dash; the option is what matters.
      const option = /'([^']+)'/.exec((error as Error).message)?.[1] ?? '';
      throw new UsageError(`unknown option ${option}`, { cause: error });
    }
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      // Node's other messages are one line, save the ambiguity one that the loop above forestalls.
      const [line = ''] = (error as Error).message.split('\n');
      throw new UsageError(line, { cause: error });
    }
    throw error;
  }
}
