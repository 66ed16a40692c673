import { createRequire } from 'node:module';
import type { DeadLetterOptions, ServiceBusReceiver } from '@azure/service-bus';
import { describe, expect, it } from 'vitest';
import { HEADERS, PermanentError } from '../../../runtime';
import {
  deadLetterOptions,
  MAX_DEAD_LETTER_TEXT,
  MAX_PROPERTY_TEXT,
  truncate,
} from '../../../runtime/servicebus/dead-letter';
import { queueHarness, serviceBusPlan } from './harness';

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('truncate', () => {
  it('keeps short text as it is', () => {
    expect(truncate('exhausted', 10)).toBe('exhausted');
  });

  it('cuts to the limit and marks the cut', () => {
    const cut = truncate('x'.repeat(50), 10);
    expect(cut).toHaveLength(10);
    expect(cut.endsWith('…')).toBe(true);
  });

  it('never splits a surrogate pair', () => {
    // '😀' is two UTF-16 code units; the cut would fall between them.
    const text = `${'x'.repeat(8)}😀tail`;
    const cut = truncate(text, 10);
    expect(cut.length).toBeLessThanOrEqual(10);
    expect(cut).not.toMatch(loneSurrogate);
    expect(cut).toBe(`${'x'.repeat(8)}…`);
  });
});

describe('the dead-letter call', () => {
  it("uses the SDK's own limit for reason and description", () => {
    // @azure/core-amqp is the SDK's dependency; load it from where the SDK finds it.
    const fromSdk = createRequire(require.resolve('@azure/service-bus'));
    const { Constants } = fromSdk('@azure/core-amqp') as { Constants: { maxDeadLetterReasonLength: number } };
    expect(MAX_DEAD_LETTER_TEXT).toBe(Constants.maxDeadLetterReasonLength);
  });

  it('builds what deadLetterMessage accepts: DeadLetterOptions plus scalar properties', () => {
    const options = deadLetterOptions(
      {
        reason: 'permanent',
        because: 'marked permanent',
        errorName: 'PermanentError',
        errorMessage: 'bad',
        attempt: 2,
        source: 'orders',
        firstFailureAt: 1,
        deadLetteredAt: 2,
      },
      4,
    );
    // The compiler holds it to the SDK's parameter type; the values are what AMQP can carry.
    const accepted: Parameters<ServiceBusReceiver['deadLetterMessage']>[1] = options;
    const required: DeadLetterOptions = options;
    expect(required).toMatchObject({
      deadLetterReason: 'permanent',
      deadLetterErrorDescription: 'attempt 2 of 4: PermanentError: bad',
    });
    for (const value of Object.values(accepted ?? {})) {
      expect(['string', 'number', 'boolean']).toContain(typeof value);
    }
  });

  it('cuts an oversized description safely, so the broker takes it', async () => {
    const huge = `${'N'.repeat(MAX_DEAD_LETTER_TEXT - 20)}😀${'n'.repeat(5_000)}`;
    const { queue, retry, receiver, clock, send, errors } = queueHarness(serviceBusPlan(), async () => {
      // describeError keeps 1,000 characters of a message but the whole name: make the name huge.
      throw Object.assign(new PermanentError('x'.repeat(5_000)), { name: huge });
    });
    retry.subscribe(receiver, { processError: async () => {} });
    await send([{ body: {}, messageId: 'msg-A' }]);
    await clock.advance(0);

    // The fake refuses text over the limit, as the .NET SDK does; so it was accepted, not lost.
    expect(errors).toEqual([]);
    const [dead] = queue.deadLetters;
    const description = dead?.deadLetterErrorDescription ?? '';
    expect(description.length).toBeLessThanOrEqual(MAX_DEAD_LETTER_TEXT);
    expect(description.startsWith('attempt 1 of 4: NNN')).toBe(true);
    expect(description.endsWith('…')).toBe(true);
    expect(description).not.toMatch(loneSurrogate);
    expect(dead?.deadLetterReason).toBe('permanent');
    expect(String(dead?.applicationProperties[HEADERS.errorName]).length).toBe(MAX_PROPERTY_TEXT);
    expect(String(dead?.applicationProperties[HEADERS.errorMessage]).length).toBeLessThanOrEqual(
      MAX_PROPERTY_TEXT,
    );
  });
});
