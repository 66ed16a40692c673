import { describe, expect, it } from 'vitest';
import { RetryTopologyError } from '../../../runtime';
import { assertBrokerVersion } from '../../../runtime/rabbitmq/broker-version';

function channelOf(serverProperties: Record<string, string> | undefined) {
  return { connection: { serverProperties } } as unknown as Parameters<typeof assertBrokerVersion>[0];
}

function refusal(run: () => void): RetryTopologyError | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof RetryTopologyError) return error;
    throw error;
  }
  return undefined;
}

const plan = { policy: 'billing' };

describe('the broker version check', () => {
  it('refuses a broker older than the plan’s brokerVersion, saying what it found and what is needed', () => {
    const error = refusal(() =>
      assertBrokerVersion(channelOf({ product: 'RabbitMQ', version: '3.10.8' }), plan, {
        mode: 'ttl-queues',
        brokerVersion: '3.13.7',
      }),
    );
    expect(error?.code).toBe('broker-too-old');
    expect(error?.message).toContain('RabbitMQ 3.10.8 is older than 3.13.7');
    expect(error?.message).toContain('its brokerVersion is 3.13.7');
  });

  it('refuses a broker older than the mode needs, even when brokerVersion says less', () => {
    const error = refusal(() =>
      assertBrokerVersion(channelOf({ product: 'RabbitMQ', version: '4.0.5' }), plan, {
        mode: 'quorum-delayed-retry',
        brokerVersion: '4.0',
      }),
    );
    expect(error?.code).toBe('broker-too-old');
    expect(error?.message).toContain('older than 4.3');
    expect(error?.message).toContain('mode "quorum-delayed-retry" needs it');
  });

  it.each([
    ['the stated version', '4.3.6', '4.3.6'],
    ['a newer patch', '4.3.6', '4.3.0'],
    ['a newer minor', '4.4.0-rc.1', '4.3.0'],
  ])('accepts %s', (_name, version, brokerVersion) => {
    expect(
      refusal(() =>
        assertBrokerVersion(channelOf({ product: 'RabbitMQ', version }), plan, {
          mode: 'quorum-delayed-retry',
          brokerVersion,
        }),
      ),
    ).toBeUndefined();
  });

  it('does not judge a broker that is not RabbitMQ or reports no version', () => {
    for (const server of [{ product: 'LavinMQ', version: '1.0.0' }, { product: 'RabbitMQ' }, undefined]) {
      expect(
        refusal(() =>
          assertBrokerVersion(channelOf(server as Record<string, string> | undefined), plan, {
            mode: 'quorum-delayed-retry',
            brokerVersion: '4.3.0',
          }),
        ),
      ).toBeUndefined();
    }
  });
});
