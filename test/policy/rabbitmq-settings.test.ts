import { describe, expect, it } from 'vitest';
import { refusedSettingIssues, refusedSettings } from '../../policy/rules/rabbitmq-settings';

/**
 * The broker's accepted values, as the rules know them. test/integration/rabbitmq/policy-settings
 * sends the same values to real brokers and checks that each refuses exactly these.
 */
describe('what RabbitMQ refuses in a policy', () => {
  it('takes every setting the plan writes, in its accepted range', () => {
    expect(
      refusedSettings({
        'dead-letter-exchange': 'billing.dlx',
        'dead-letter-routing-key': 'billing',
        'dead-letter-strategy': 'at-least-once',
        overflow: 'reject-publish',
        'delivery-limit': 3,
        'message-ttl': 0,
        'max-length': 0,
        'delayed-retry-type': 'failed',
        'delayed-retry-min': 1,
        'delayed-retry-max': 1,
      }),
    ).toEqual([]);
  });

  it.each([
    ['delayed-retry-min', 0],
    ['delayed-retry-max', 0],
    ['delayed-retry-min', 1.5],
    ['delayed-retry-max', '1000'],
    ['delayed-retry-type', 'linear'],
    ['message-ttl', -1],
    ['message-ttl', '1000'],
    ['expires', 0],
    ['max-length', -1],
    ['delivery-limit', 2.5],
    ['overflow', 'drop-tail'],
    ['dead-letter-strategy', 'exactly-once'],
    ['dead-letter-exchange', 5],
    ['x-message-ttl', 1000],
  ])('refuses %s: %j', (key, value) => {
    expect(refusedSettings({ [key]: value }).map((refused) => refused.key)).toEqual([key]);
  });

  it('refuses a delayed-retry type without a min, and a max below the min', () => {
    expect(refusedSettings({ 'delayed-retry-type': 'failed', 'delayed-retry-max': 10 })).toMatchObject([
      { key: 'delayed-retry-min', value: undefined },
    ]);
    expect(
      refusedSettings({ 'delayed-retry-type': 'failed', 'delayed-retry-min': 10, 'delayed-retry-max': 9 }),
    ).toMatchObject([{ key: 'delayed-retry-max', value: 9 }]);
    expect(refusedSettings({ 'delayed-retry-type': 'disabled' })).toEqual([]);
  });

  it('names the policy, the setting and the field to change', () => {
    const found = refusedSettingIssues([
      { name: 'billing.policy', definition: { 'delayed-retry-type': 'failed', 'delayed-retry-min': 0 } },
    ]);
    expect(found).toEqual([
      {
        code: 'broker-refuses-setting',
        severity: 'error',
        path: ['spec', 'backoff'],
        message:
          'RabbitMQ would refuse policy "billing.policy": delayed-retry-min 0, expected a whole number of milliseconds, 1 or more',
      },
    ]);
  });
});
