import type { ClassificationPlan } from '../policy/plan/types';
import { PermanentError, TransientError } from './errors';

export type FailureKind = 'transient' | 'permanent';

export interface Classified {
  kind: FailureKind;
  /** Why: which rule or marker decided, for logs and dead-letter metadata. */
  because: string;
}

/** How deep to follow `error.cause`; a cycle or a long chain stops here. */
const MAX_CAUSE_DEPTH = 8;

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  status?: unknown;
  statusCode?: unknown;
  response?: { status?: unknown; statusCode?: unknown };
  cause?: unknown;
  retryable?: unknown;
  constructor?: { name?: unknown };
}

function chain(error: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  let current: unknown = error;
  while (
    current !== null &&
    typeof current === 'object' &&
    out.length < MAX_CAUSE_DEPTH &&
    !out.includes(current)
  ) {
    out.push(current as ErrorLike);
    current = (current as ErrorLike).cause;
  }
  return out;
}

/** Both error.name and the class name: `class Foo extends Error {}` keeps name "Error". */
export function namesOf(error: ErrorLike): string[] {
  const names = [error.name, error.constructor?.name].filter(
    (name): name is string => typeof name === 'string',
  );
  return [...new Set(names)];
}

export function statusOf(error: ErrorLike): number | undefined {
  for (const value of [error.status, error.statusCode, error.response?.status, error.response?.statusCode]) {
    const status = typeof value === 'string' ? Number(value) : value;
    if (typeof status === 'number' && Number.isInteger(status)) return status;
  }
  return undefined;
}

/** One side of the rules as sets: looked up once per error instead of scanned (5xx alone is 100 statuses). */
interface RuleSets {
  names: ReadonlySet<string>;
  codes: ReadonlySet<string>;
  statuses: ReadonlySet<number>;
}

const compiled = new WeakMap<ClassificationPlan, { permanent: RuleSets; transient: RuleSets }>();

function setsOf(rules: ClassificationPlan): { permanent: RuleSets; transient: RuleSets } {
  let sets = compiled.get(rules);
  if (!sets) {
    const side = (each: ClassificationPlan['transient']): RuleSets => ({
      names: new Set(each.errorNames),
      codes: new Set(each.errorCodes),
      statuses: new Set(each.httpStatuses),
    });
    sets = { permanent: side(rules.permanent), transient: side(rules.transient) };
    compiled.set(rules, sets);
  }
  return sets;
}

function matches(error: ErrorLike, rules: RuleSets): string | undefined {
  const name = error.name;
  if (typeof name === 'string' && rules.names.has(name)) return `name ${name}`;
  const className = error.constructor?.name;
  if (typeof className === 'string' && rules.names.has(className)) return `name ${className}`;
  if (
    (typeof error.code === 'string' || typeof error.code === 'number') &&
    rules.codes.has(String(error.code))
  )
    return `code ${String(error.code)}`;
  const status = statusOf(error);
  if (status !== undefined && rules.statuses.has(status)) return `HTTP ${status}`;
  return undefined;
}

/**
 * Transient or permanent, following the error and its causes. Order: a PermanentError or
 * TransientError marker; then a permanent rule anywhere in the chain; then a transient rule;
 * then the policy's `unknown` (permanent unless the policy says otherwise).
 */
export function classify(error: unknown, rules: ClassificationPlan): Classified {
  const errors = chain(error);
  for (const each of errors) {
    if (each instanceof PermanentError || each.retryable === false)
      return { kind: 'permanent', because: 'marked permanent' };
    if (each instanceof TransientError || each.retryable === true)
      return { kind: 'transient', because: 'marked transient' };
  }
  const sets = setsOf(rules);
  for (const each of errors) {
    const rule = matches(each, sets.permanent);
    if (rule) return { kind: 'permanent', because: `permanent rule: ${rule}` };
  }
  for (const each of errors) {
    const rule = matches(each, sets.transient);
    if (rule) return { kind: 'transient', because: `transient rule: ${rule}` };
  }
  return { kind: rules.unknown, because: `no rule matched; unknown errors are ${rules.unknown}` };
}
