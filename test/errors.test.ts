import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every error the package exports, from every entry point, is a RetryTopologyError with a code,
 * so one `catch (error) { if (error instanceof RetryTopologyError) ... }` covers them all. Read
 * from the built package by its own name, the way a user's program loads it.
 */

type ErrorClass = new (...args: unknown[]) => Error;

const require = createRequire(join(process.cwd(), 'package.json'));
const { exports } = JSON.parse(readFileSync('package.json', 'utf8')) as { exports: Record<string, string> };
const entryPoints = Object.keys(exports)
  .filter((key) => exports[key]?.endsWith('.js'))
  .map((key) => (key === '.' ? 'retry-topology' : `retry-topology/${key.slice(2)}`));

const { RetryTopologyError } = require('retry-topology') as { RetryTopologyError: ErrorClass };

/** Each exported error class of an entry point, by name. */
function errorClasses(entryPoint: string): Map<string, ErrorClass> {
  const module = require(entryPoint) as Record<string, unknown>;
  return new Map(
    Object.entries(module).filter(
      (entry): entry is [string, ErrorClass] =>
        typeof entry[1] === 'function' && (entry[1] as { prototype?: unknown }).prototype instanceof Error,
    ),
  );
}

const cause = new Error('underneath');

/**
 * How to make one of each, with a cause where the class takes one, and the name and code it must
 * have. A new exported error class fails the test below until it has a line here.
 */
const MAKE: Record<string, { make: (Class: ErrorClass) => Error; name: string; code: string; cause?: true }> =
  {
    RetryTopologyError: {
      make: (Class) => new Class('no-target', 'm', { cause }),
      name: 'RetryTopologyError',
      code: 'no-target',
      cause: true,
    },
    PolicyError: {
      make: (Class) => new Class([]),
      name: 'PolicyError',
      code: 'invalid-policy',
    },
    PermanentError: {
      make: (Class) => new Class('m', { cause }),
      name: 'PermanentError',
      code: 'permanent',
      cause: true,
    },
    TransientError: {
      make: (Class) => new Class('m', { cause, retryAfterMs: 5 }),
      name: 'TransientError',
      code: 'transient',
      cause: true,
    },
    AttemptTimeoutError: {
      make: (Class) => new Class('m'),
      // Its name is TimeoutError, so callWithRetry's rules retry it as any timeout.
      name: 'TimeoutError',
      code: 'attempt-timeout',
    },
    DeadLetterError: {
      make: (Class) => new Class('broker-failed', 'm', { cause }),
      name: 'DeadLetterError',
      code: 'broker-failed',
      cause: true,
    },
    KafkaRetryError: {
      make: (Class) => new Class('produce-failed', 'm', { cause }),
      name: 'KafkaRetryError',
      code: 'produce-failed',
      cause: true,
    },
    ServiceBusRetryError: {
      make: (Class) => new Class('settle-failed', 'm', { cause, messageId: 'a' }),
      name: 'ServiceBusRetryError',
      code: 'settle-failed',
      cause: true,
    },
    TopologyError: {
      make: (Class) => new Class('invalid-option', 'm', { cause }),
      name: 'TopologyError',
      code: 'invalid-option',
      cause: true,
    },
  };

describe('the errors of every entry point share one coded base', () => {
  it('finds the entry points and the error classes the docs name', () => {
    expect(entryPoints).toContain('retry-topology/runtime/kafka');
    const found = new Set(entryPoints.flatMap((entryPoint) => [...errorClasses(entryPoint).keys()]));
    expect([...found].sort()).toEqual(Object.keys(MAKE).sort());
  });

  it.each(entryPoints)(
    '%s: each error class is a RetryTopologyError with its name and a code',
    (entryPoint) => {
      for (const [className, Class] of errorClasses(entryPoint)) {
        const expected = MAKE[className];
        expect(expected, `${entryPoint} exports ${className}: add it to MAKE`).toBeDefined();
        if (!expected) continue;
        expect(Class === RetryTopologyError || Class.prototype instanceof RetryTopologyError, className).toBe(
          true,
        );
        const error = expected.make(Class) as Error & { code?: unknown };
        expect(error).toBeInstanceOf(RetryTopologyError);
        expect(error).toBeInstanceOf(Class);
        expect(error.name).toBe(expected.name);
        expect(error.code).toBe(expected.code);
        expect(error.message.length).toBeGreaterThan(0);
        if (expected.cause) expect(error.cause).toBe(cause);
      }
    },
  );

  it('retry-topology, /runtime and /components export the same RetryTopologyError', () => {
    for (const entryPoint of ['retry-topology/runtime', 'retry-topology/components'])
      expect((require(entryPoint) as { RetryTopologyError: unknown }).RetryTopologyError).toBe(
        RetryTopologyError,
      );
  });
});

/** The package's sources, a directory at a time. */
function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('no error class of the package starts from Error', () => {
  it('every class that extends a built-in error is RetryTopologyError itself', () => {
    const direct = ['policy', 'runtime', 'components', 'cli']
      .flatMap(sources)
      .flatMap((file) =>
        [
          ...readFileSync(file, 'utf8').matchAll(
            /^\s*(?:export\s+)?class\s+(\w+)\s+extends\s+(\w*Error)\s*\{/gm,
          ),
        ]
          .filter((match) => ['Error', 'TypeError', 'RangeError', 'SyntaxError'].includes(match[2] ?? ''))
          .map((match) => `${file}: ${match[1]}`),
      );
    expect(direct).toEqual(['policy/errors.ts: RetryTopologyError']);
  });
});
