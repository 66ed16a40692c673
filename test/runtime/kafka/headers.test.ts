import { describe, expect, it } from 'vitest';
import { HEADERS } from '../../../runtime';
import { headerText, KAFKA_HEADERS } from '../../../runtime/kafka';
import {
  deadLetterCopyHeaders,
  originOf,
  parkedCopyHeaders,
  retryCopyHeaders,
} from '../../../runtime/kafka/headers';
import { billingPlan } from '../plan-fixture';

const origin = { topic: 'bookstore.orders', partition: 2, offset: '41' };

describe('Kafka copy headers', () => {
  it('are the header names the plan announces', () => {
    const kafka = billingPlan().targets.kafka;
    expect(kafka?.attemptHeader).toBe(HEADERS.attempt);
    expect(kafka?.notBeforeHeader).toBe(KAFKA_HEADERS.notBefore);
  });

  it('reads the first value of a header, from Buffers, strings and repeats', () => {
    expect(headerText({ a: Buffer.from('1') }, 'a')).toBe('1');
    expect(headerText({ a: ['x', 'y'] }, 'a')).toBe('x');
    expect(headerText({ a: [Buffer.from('z')] }, 'a')).toBe('z');
    expect(headerText({}, 'a')).toBeUndefined();
    expect(headerText(undefined, 'a')).toBeUndefined();
  });

  it('builds the first retry copy: producer headers kept, attempt, due time, origin and first failure', () => {
    const headers = retryCopyHeaders({
      incoming: { traceparent: Buffer.from('00-abc'), tenant: 'eu' },
      origin,
      nextAttempt: 2,
      notBefore: 1_000_500,
      firstFailureAt: 1_000_000,
    });
    expect(headers).toEqual({
      traceparent: Buffer.from('00-abc'),
      tenant: 'eu',
      [HEADERS.attempt]: '2',
      [KAFKA_HEADERS.notBefore]: '1000500',
      [HEADERS.firstFailureAt]: '1000000',
      [KAFKA_HEADERS.originalTopic]: 'bookstore.orders',
      [KAFKA_HEADERS.originalPartition]: '2',
      [KAFKA_HEADERS.originalOffset]: '41',
    });
  });

  it('replaces our own headers on a later copy instead of carrying two of them', () => {
    const incoming = {
      [HEADERS.attempt]: Buffer.from('2'),
      [KAFKA_HEADERS.notBefore]: Buffer.from('5'),
      [KAFKA_HEADERS.parked]: Buffer.from('true'),
      [HEADERS.reason]: Buffer.from('stale'),
      keep: 'me',
    };
    const headers = retryCopyHeaders({ incoming, origin, nextAttempt: 3, notBefore: 9, firstFailureAt: 1 });
    expect(headers[HEADERS.attempt]).toBe('3');
    expect(headers[KAFKA_HEADERS.notBefore]).toBe('9');
    expect(headers[KAFKA_HEADERS.parked]).toBeUndefined();
    expect(headers[HEADERS.reason]).toBeUndefined();
    expect(headers.keep).toBe('me');
  });

  it('carries an unreadable attempt forward, so the dead letter still shows it', () => {
    const headers = retryCopyHeaders({
      incoming: {},
      origin,
      nextAttempt: 2,
      notBefore: 1,
      firstFailureAt: 1,
      attemptInvalid: 'abc',
    });
    expect(headers[HEADERS.attemptInvalid]).toBe('abc');
  });

  it('parks a record with its own attempt and first failure, due when the head is', () => {
    const headers = parkedCopyHeaders({
      incoming: { [HEADERS.firstFailureAt]: Buffer.from('77'), [HEADERS.attempt]: Buffer.from('3') },
      origin,
      attempt: 3,
      notBefore: 1_234,
    });
    expect(headers).toMatchObject({
      [HEADERS.attempt]: '3',
      [HEADERS.firstFailureAt]: '77',
      [KAFKA_HEADERS.notBefore]: '1234',
      [KAFKA_HEADERS.parked]: 'true',
      [KAFKA_HEADERS.originalOffset]: '41',
    });
    const fresh = parkedCopyHeaders({ incoming: undefined, origin, attempt: 1, notBefore: 5 });
    expect(fresh[HEADERS.firstFailureAt]).toBeUndefined();
  });

  it('dead-letters with the shared reason and error headers plus the origin, and no due time', () => {
    const headers = deadLetterCopyHeaders({
      incoming: { [KAFKA_HEADERS.notBefore]: Buffer.from('5'), app: 'x' },
      origin,
      info: {
        reason: 'permanent',
        because: 'permanent rule: name InvalidCurrencyError',
        errorName: 'InvalidCurrencyError',
        errorMessage: 'unsupported currency XXX',
        attempt: 1,
        source: 'bookstore.orders',
        firstFailureAt: 10,
        deadLetteredAt: 10,
      },
    });
    expect(headers).toEqual({
      app: 'x',
      [HEADERS.reason]: 'permanent',
      [HEADERS.because]: 'permanent rule: name InvalidCurrencyError',
      [HEADERS.errorName]: 'InvalidCurrencyError',
      [HEADERS.errorMessage]: 'unsupported currency XXX',
      [HEADERS.attempt]: '1',
      [HEADERS.source]: 'bookstore.orders',
      [HEADERS.firstFailureAt]: '10',
      [HEADERS.deadLetteredAt]: '10',
      [KAFKA_HEADERS.originalTopic]: 'bookstore.orders',
      [KAFKA_HEADERS.originalPartition]: '2',
      [KAFKA_HEADERS.originalOffset]: '41',
    });
  });

  it('reads the origin from a copy, and falls back to the record itself when it is missing or damaged', () => {
    const self = { topic: 'p.retry.1', partition: 2, offset: '7' };
    const copy = retryCopyHeaders({ incoming: {}, origin, nextAttempt: 2, notBefore: 1, firstFailureAt: 1 });
    expect(originOf(copy, self)).toEqual({ ...origin, fromHeaders: true });
    expect(originOf({}, self)).toEqual({ ...self, fromHeaders: false });
    expect(originOf({ ...copy, [KAFKA_HEADERS.originalOffset]: '-1' }, self).fromHeaders).toBe(false);
    expect(originOf({ ...copy, [KAFKA_HEADERS.originalPartition]: 'x' }, self).fromHeaders).toBe(false);
  });
});
