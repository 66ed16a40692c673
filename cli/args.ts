import { type ParseArgsConfig, parseArgs } from 'node:util';

type Options = Record<string, { type: 'string' | 'boolean'; default?: string | boolean }>;

export interface ParsedArgs<T extends Options> {
  values: {
    [K in keyof T]: T[K]['type'] extends 'boolean'
      ? boolean
      : T[K]['default'] extends string
        ? string
        : string | undefined;
  };
  positionals: string[];
}

/**
 * node:util parseArgs, except that a value may be a negative number written as the next word
 * (`--seed -1`): parseArgs alone reads "-1" as an unknown option and asks for `--seed=-1`.
 */
export function parseCommandArgs<T extends Options>(args: readonly string[], options: T): ParsedArgs<T> {
  const joined: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? '';
    const next = args[index + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (name && options[name]?.type === 'string' && next !== undefined && /^-\.?\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      index++;
    } else joined.push(arg);
  }
  const parsed = parseArgs({
    args: joined,
    allowPositionals: true,
    strict: true,
    options: options as NonNullable<ParseArgsConfig['options']>,
  });
  return parsed as unknown as ParsedArgs<T>;
}
