import { describe, expect, it } from 'vitest';
import { parseRetryAfter, retryAfterOf, TransientError } from '../../runtime';
import { httpError } from './plan-fixture';

const NOW = Date.UTC(2026, 10, 30, 9, 0, 0);

describe('Retry-After', () => {
  it('reads seconds', () => {
    expect(parseRetryAfter('120', NOW)).toBe(120_000);
  });

  it('reads an HTTP date', () => {
    expect(parseRetryAfter(new Date(NOW + 30_000).toUTCString(), NOW)).toBe(30_000);
  });

  it('turns a date in the past into no wait', () => {
    expect(parseRetryAfter(new Date(NOW - 30_000).toUTCString(), NOW)).toBe(0);
  });

  it.each(['soon', '-5', '1.5', ''])('ignores %j', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });

  it('finds the header on the error, on its response, in any case, or on a cause', () => {
    expect(retryAfterOf(httpError(503, { 'Retry-After': '3' }), NOW)).toBe(3_000);
    expect(
      retryAfterOf(Object.assign(new Error('x'), { response: { headers: { 'retry-after': '4' } } }), NOW),
    ).toBe(4_000);
    expect(
      retryAfterOf(Object.assign(new Error('x'), { headers: new Headers({ 'retry-after': '5' }) }), NOW),
    ).toBe(5_000);
    expect(retryAfterOf(new Error('outer', { cause: httpError(429, { 'retry-after': '6' }) }), NOW)).toBe(
      6_000,
    );
    expect(retryAfterOf(new TransientError('x', { retryAfterMs: 700 }), NOW)).toBe(700);
    expect(retryAfterOf(new Error('none'), NOW)).toBeUndefined();
  });
});
