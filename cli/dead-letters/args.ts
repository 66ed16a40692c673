import { parseDuration } from '../../policy';
import type { TargetName } from '../../policy/plan/targets';
import {
  type DeadLetterErrorCode,
  type DeadLetterFilter,
  type DeadLetterReasonGroup,
  REASON_GROUPS,
} from '../../runtime/dead-letters';
import { parseCommandArgs, UsageError } from '../args';
import { parseRate } from '../simulate/rate';
import { TARGET_CHOICES, targetNamed } from '../targets';

export const VERBS = ['list', 'show', 'replay', 'purge'] as const;
export type Verb = (typeof VERBS)[number];

/** Where to connect, from flags or the environment: never from the policy or the plan. */
export interface ConnectionSettings {
  /** RabbitMQ: --url or RABBITMQ_URL. */
  url?: string;
  /** Kafka: --brokers or KAFKA_BROKERS, comma-separated host:port. */
  brokers?: string[];
  /** Kafka: --ssl or KAFKA_SSL=true; SASL from KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD. */
  ssl?: boolean;
  sasl?: { mechanism: string; username: string; password: string };
  /** Service Bus: --connection-string or SERVICEBUS_CONNECTION_STRING. */
  connectionString?: string;
}

export interface DeadLetterArgs {
  verb: Verb;
  input: string;
  target: TargetName;
  policy?: string;
  format: 'text' | 'json' | 'markdown';
  filter: DeadLetterFilter;
  skip: number;
  limit?: number;
  previewBytes: number;
  ratePerSecond: number;
  keepAttempts: boolean;
  yes: boolean;
  expect?: number;
  archive?: string;
  connection: ConnectionSettings;
}

/** A replay with no --rate: paced, because an unpaced replay is the wave jitter was meant to prevent. */
export const DEFAULT_RATE = '50/s';
export const DEFAULT_PREVIEW_BYTES = 512;

/** The codes the docs list for a command-line mistake in dead-letters, shown as `✖ [code] ...`. */
export type DeadLetterUsageCode = Extract<
  DeadLetterErrorCode,
  'invalid-option' | 'invalid-filter' | 'no-target'
>;

/** A command-line mistake: a UsageError with the code dead-letters shows for it. */
export function usageError(message: string, code: DeadLetterUsageCode = 'invalid-option'): UsageError {
  return new UsageError(message, { code });
}

function fail(message: string): never {
  throw usageError(message);
}

/** A filter's value that cannot be read is `invalid-filter`, any other option's `invalid-option`. */
function wholeNumber(
  text: string | undefined,
  name: string,
  min: number,
  code: DeadLetterUsageCode = 'invalid-option',
): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim())) throw usageError(`${name} needs a whole number, got "${text}"`, code);
  const value = Number(text);
  if (value < min) throw usageError(`${name} must be at least ${min}`, code);
  return value;
}

/** A point in time: an ISO 8601 date or time, or a duration meaning that long ago ("2h"). */
export function parseInstant(text: string, name: string, now: number): number {
  const ago = parseDuration(text);
  if (ago !== undefined) return now - ago;
  if (/^\d{4}-\d{2}-\d{2}/.test(text.trim())) {
    const at = Date.parse(text);
    if (Number.isFinite(at)) return at;
  }
  throw usageError(
    `${name} needs an ISO date or time (2026-05-01T12:00Z) or a duration ago (2h), got "${text}"`,
    'invalid-filter',
  );
}

const list = (values: string[] | undefined) =>
  (values ?? [])
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter(Boolean);

const OPTIONS = {
  target: { type: 'string' },
  policy: { type: 'string' },
  format: { type: 'string', default: 'text' },
  reason: { type: 'string', multiple: true },
  error: { type: 'string', multiple: true },
  since: { type: 'string' },
  until: { type: 'string' },
  id: { type: 'string', multiple: true },
  max: { type: 'string' },
  skip: { type: 'string' },
  limit: { type: 'string' },
  preview: { type: 'string' },
  rate: { type: 'string' },
  'keep-attempts': { type: 'boolean', default: false },
  yes: { type: 'boolean', default: false },
  expect: { type: 'string' },
  archive: { type: 'string' },
  url: { type: 'string' },
  brokers: { type: 'string' },
  ssl: { type: 'boolean' },
  'connection-string': { type: 'string' },
} as const;

/** The shared parser, whose one-line usage errors (unknown option, missing value) are `invalid-option` here. */
function parseOptions(args: string[]) {
  try {
    return parseCommandArgs(args, OPTIONS);
  } catch (error) {
    if (error instanceof UsageError)
      throw new UsageError(error.message, { code: 'invalid-option', cause: error });
    throw error;
  }
}

export function parseDeadLetterArgs(args: string[], env: NodeJS.ProcessEnv, now: number): DeadLetterArgs {
  const { values, positionals } = parseOptions(args);
  const [verbText, input, ...extra] = positionals;
  const verb = VERBS.find((each) => each === verbText);
  if (!verb) fail(`say what to do: ${VERBS.join(', ')}`);
  if (!input || extra.length > 0) fail('give one policy file or plan JSON (- reads stdin)');
  if (values.target === undefined) fail(`--target is required: ${TARGET_CHOICES}`);
  const target = targetNamed(values.target);
  if (!target) throw usageError(`unknown target "${values.target}": use ${TARGET_CHOICES}`, 'no-target');
  const formats = verb === 'list' ? ['text', 'json', 'markdown'] : ['text', 'json'];
  if (!formats.includes(values.format)) fail(`--format for ${verb} is one of ${formats.join(', ')}`);

  const reasons = list(values.reason);
  for (const reason of reasons) {
    if (!REASON_GROUPS.includes(reason as DeadLetterReasonGroup))
      throw usageError(`--reason is one of ${REASON_GROUPS.join(', ')}, got "${reason}"`, 'invalid-filter');
  }
  const filter: DeadLetterFilter = {};
  if (reasons.length) filter.reasons = reasons as DeadLetterReasonGroup[];
  const errorNames = list(values.error);
  if (errorNames.length) filter.errorNames = errorNames;
  const ids = list(values.id);
  if (ids.length) filter.ids = ids;
  if (values.since !== undefined) filter.since = parseInstant(values.since, '--since', now);
  if (values.until !== undefined) filter.until = parseInstant(values.until, '--until', now);
  const max = wholeNumber(values.max, '--max', 1, 'invalid-filter');
  if (max !== undefined) filter.max = max;

  const rateText = values.rate ?? DEFAULT_RATE;
  const ratePerSecond = parseRate(rateText);
  if (ratePerSecond === undefined)
    fail(`--rate needs a rate such as 50/s, 600/m or 1000/h, got "${rateText}"`);

  const connection: ConnectionSettings = {};
  const url = values.url ?? env.RABBITMQ_URL;
  if (url) connection.url = url;
  const brokers = list([values.brokers ?? env.KAFKA_BROKERS ?? '']);
  if (brokers.length) connection.brokers = brokers;
  if (values.ssl ?? env.KAFKA_SSL === 'true') connection.ssl = true;
  if (env.KAFKA_SASL_MECHANISM && env.KAFKA_SASL_USERNAME && env.KAFKA_SASL_PASSWORD !== undefined) {
    connection.sasl = {
      mechanism: env.KAFKA_SASL_MECHANISM,
      username: env.KAFKA_SASL_USERNAME,
      password: env.KAFKA_SASL_PASSWORD,
    };
  }
  const connectionString = values['connection-string'] ?? env.SERVICEBUS_CONNECTION_STRING;
  if (connectionString) connection.connectionString = connectionString;

  const out: DeadLetterArgs = {
    verb,
    input,
    target,
    format: values.format as DeadLetterArgs['format'],
    filter,
    skip: wholeNumber(values.skip, '--skip', 0) ?? 0,
    previewBytes: wholeNumber(values.preview, '--preview', 0) ?? DEFAULT_PREVIEW_BYTES,
    ratePerSecond,
    keepAttempts: values['keep-attempts'] ?? false,
    yes: values.yes ?? false,
    connection,
  };
  if (values.policy !== undefined) out.policy = values.policy;
  const limit = wholeNumber(values.limit, '--limit', 1);
  if (limit !== undefined) out.limit = limit;
  const expect = wholeNumber(values.expect, '--expect', 0);
  if (expect !== undefined) out.expect = expect;
  if (values.archive !== undefined) out.archive = values.archive;
  return out;
}
