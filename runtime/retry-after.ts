/**
 * A server's "try again after" hint: `Retry-After` in seconds or as an HTTP date, from the error
 * or its HTTP response, or TransientError's retryAfterMs. Returns milliseconds from `now`.
 */

interface WithHeaders {
  retryAfterMs?: unknown;
  headers?: unknown;
  response?: { headers?: unknown };
  cause?: unknown;
}

function header(headers: unknown, name: string): string | undefined {
  if (!headers || typeof headers !== 'object') return undefined;
  // fetch's Headers, and plain objects of any key case.
  const getter = (headers as { get?: unknown }).get;
  if (typeof getter === 'function') {
    const value = getter.call(headers, name);
    return typeof value === 'string' ? value : undefined;
  }
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? String(value[0]) : String(value);
  }
  return undefined;
}

/** Seconds ("120") or an HTTP date; anything else is no hint. Never negative. */
export function parseRetryAfter(value: string, now: number): number | undefined {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1_000;
  const date = Date.parse(text);
  if (Number.isNaN(date) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(0, date - now);
}

export function retryAfterOf(error: unknown, now: number): number | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth++) {
    const candidate = current as WithHeaders;
    if (typeof candidate.retryAfterMs === 'number' && candidate.retryAfterMs >= 0)
      return candidate.retryAfterMs;
    const raw =
      header(candidate.headers, 'retry-after') ?? header(candidate.response?.headers, 'retry-after');
    if (raw !== undefined) return parseRetryAfter(raw, now);
    current = candidate.cause;
  }
  return undefined;
}
