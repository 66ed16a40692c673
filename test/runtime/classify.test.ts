import { describe, expect, it } from 'vitest';
import { classify, PermanentError, TransientError } from '../../runtime';
import { billingPlan, httpError, InvalidCurrencyError } from './plan-fixture';

const rules = billingPlan().classification;

describe('classify', () => {
  it.each([
    ['HTTP 503', httpError(503), 'transient'],
    ['HTTP 429', httpError(429), 'transient'],
    ['HTTP 408', httpError(408), 'transient'],
    ['HTTP 400', httpError(400), 'permanent'],
    ['HTTP 404', httpError(404), 'permanent'],
    ['an invalid currency (class name, name never set)', new InvalidCurrencyError('XXX'), 'permanent'],
    ['an unknown error', new TypeError('cannot read x of undefined'), 'permanent'],
    ['a thrown string', 'boom', 'permanent'],
    ['a PermanentError marker', new PermanentError('no'), 'permanent'],
    ['a TransientError marker', new TransientError('later'), 'transient'],
    ['a 503 wrapped as a cause', new Error('charge failed', { cause: httpError(503) }), 'transient'],
    [
      'axios-style response.status',
      Object.assign(new Error('x'), { response: { status: 502 } }),
      'transient',
    ],
    ['statusCode as text', Object.assign(new Error('x'), { statusCode: '504' }), 'transient'],
  ])('%s is %s', (_name, error, kind) => {
    expect(classify(error, rules).kind).toBe(kind);
  });

  it('lets a permanent rule anywhere in the chain win over a transient one', () => {
    const error = Object.assign(new InvalidCurrencyError('XXX'), { cause: httpError(503) });
    expect(classify(error, rules)).toMatchObject({
      kind: 'permanent',
      because: 'permanent rule: name InvalidCurrencyError',
    });
  });

  it('treats unknown errors as transient only when the policy says so', () => {
    expect(classify(new Error('?'), { ...rules, unknown: 'transient' }).kind).toBe('transient');
  });

  it('survives a cause cycle', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(classify(a, rules).kind).toBe('permanent');
  });
});
