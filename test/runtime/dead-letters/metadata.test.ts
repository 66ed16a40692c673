import { describe, expect, it } from 'vitest';
import { deadLetterHeaders } from '../../../runtime';
import { matches, readDeadLetterMetadata, replayedHeaders } from '../../../runtime/dead-letters';
import { MemoryBroker } from './memory-broker';

describe('reading the dead-letter metadata the runtime wrote', () => {
  const info = {
    reason: 'exhausted' as const,
    because: 'transient: HTTP 503',
    errorName: 'HttpRequestError',
    errorMessage: 'HTTP 503',
    attempt: 4,
    source: 'billing',
    firstFailureAt: 1_700_000_000_000,
    deadLetteredAt: 1_700_000_007_000,
  };

  it('reads what deadLetterHeaders wrote, whether values come as numbers, text or bytes', () => {
    const headers = deadLetterHeaders(info);
    const asBytes = Object.fromEntries(
      Object.entries(headers).map(([key, value]) => [key, Buffer.from(String(value))]),
    );
    for (const shape of [headers, asBytes]) {
      expect(readDeadLetterMetadata((name) => shape[name])).toEqual({
        reason: 'exhausted',
        because: 'transient: HTTP 503',
        errorName: 'HttpRequestError',
        errorMessage: 'HTTP 503',
        attempt: 4,
        source: 'billing',
        firstFailureAt: 1_700_000_000_000,
        deadLetteredAt: 1_700_000_007_000,
        replays: 0,
      });
    }
  });

  it('leaves out what is missing or unreadable instead of guessing', () => {
    const metadata = readDeadLetterMetadata(
      (name) =>
        ({
          'retry-dead-letter-reason': 'gone-fishing',
          'retry-attempt': 'abc',
          'retry-dead-lettered-at': 'yesterday',
          'retry-replay-count': '-3',
        })[name],
    );
    expect(metadata).toEqual({ replays: 0, attemptInvalid: 'abc' });
  });
});

describe('the headers of a replayed copy', () => {
  const dead = {
    ...deadLetterHeaders({
      reason: 'permanent',
      because: 'permanent: InvalidCurrencyError',
      errorName: 'InvalidCurrencyError',
      errorMessage: 'XXX',
      attempt: 3,
      source: 'billing',
      firstFailureAt: 1,
      deadLetteredAt: 2,
      attemptInvalid: 'abc',
    }),
    traceparent: '00-abc-def-01',
    'x-tenant': 'acme',
  };

  it('drop the dead-letter metadata and restart the attempt, keep the producer’s, and say when it was replayed', () => {
    expect(replayedHeaders(dead, { now: 99, keepAttempts: false, replays: 0 })).toEqual({
      traceparent: '00-abc-def-01',
      'x-tenant': 'acme',
      'retry-replayed-at': 99,
      'retry-replay-count': 1,
    });
  });

  it('keep the attempt and first failure with --keep-attempts, and count every replay', () => {
    expect(replayedHeaders(dead, { now: 99, keepAttempts: true, replays: 2 })).toEqual({
      'retry-attempt': 3,
      'retry-first-failure-at': 1,
      traceparent: '00-abc-def-01',
      'x-tenant': 'acme',
      'retry-replayed-at': 99,
      'retry-replay-count': 3,
    });
  });
});

describe('filters', () => {
  const [a, b, c, d] = new MemoryBroker().add(4, (index) => ({
    reason: (['permanent', 'exhausted', 'broker-rejected', 'permanent'] as const)[index],
    errorName: ['InvalidCurrencyError', 'HttpRequestError', undefined, 'TypeError'][index],
    messageId: `msg-${index}`,
    ...(index === 2 ? {} : { deadLetteredAt: 1_000 * (index + 1) }),
  })).stored;

  it('narrow by reason, error name, id or message id, and time', () => {
    const all = [a, b, c, d].map((letter) => letter as NonNullable<typeof a>);
    const pick = (filter: Parameters<typeof matches>[1]) =>
      all.filter((letter) => matches(letter, filter)).map((letter) => letter.id);
    expect(pick({})).toEqual(['d-0', 'd-1', 'd-2', 'd-3']);
    expect(pick({ reasons: ['permanent'] })).toEqual(['d-0', 'd-3']);
    expect(pick({ reasons: ['permanent'], errorNames: ['TypeError'] })).toEqual(['d-3']);
    expect(pick({ ids: ['d-1', 'msg-3'] })).toEqual(['d-1', 'd-3']);
    // A time bound never takes a letter whose time is unknown (d-2).
    expect(pick({ since: 2_000 })).toEqual(['d-1', 'd-3']);
    expect(pick({ until: 2_000 })).toEqual(['d-0']);
    expect(pick({ since: 0, until: 10_000 })).toEqual(['d-0', 'd-1', 'd-3']);
  });

  it('never select what Kafka already replayed or purged', () => {
    expect(matches({ ...(a as NonNullable<typeof a>), handled: true }, {})).toBe(false);
  });
});
