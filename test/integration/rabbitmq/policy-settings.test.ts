import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { refusedSettings } from '../../../policy/rules/rabbitmq-settings';
import { brokerVersion, management } from './support';

type Definition = Record<string, string | number>;

/** One setting at a time, at and beyond the edges of what the broker accepts. */
const SETTINGS: Definition[] = [
  { 'message-ttl': 0 },
  { 'message-ttl': -1 },
  { 'message-ttl': 1.5 },
  { 'message-ttl': '1000' },
  { expires: 1 },
  { expires: 0 },
  { 'max-length': 0 },
  { 'max-length': -1 },
  { 'max-length-bytes': 0 },
  { 'max-length-bytes': -1 },
  { overflow: 'reject-publish' },
  { overflow: 'drop-head' },
  { overflow: 'reject-publish-dlx' },
  { overflow: 'drop-tail' },
  { 'dead-letter-exchange': 'some.dlx' },
  { 'dead-letter-exchange': 5 },
  { 'dead-letter-routing-key': 'key' },
  { 'dead-letter-routing-key': 5 },
  { 'dead-letter-strategy': 'at-least-once' },
  { 'dead-letter-strategy': 'at-most-once' },
  { 'dead-letter-strategy': 'exactly-once' },
  { 'delivery-limit': 5 },
  { 'delivery-limit': 0 },
  { 'delivery-limit': 2.5 },
];

/** The quorum queue's delayed retry, which RabbitMQ knows from 4.3. */
const DELAYED_RETRY: Definition[] = [
  { 'delayed-retry-type': 'failed', 'delayed-retry-min': 1 },
  { 'delayed-retry-type': 'failed', 'delayed-retry-min': 1000, 'delayed-retry-max': 4000 },
  { 'delayed-retry-type': 'failed', 'delayed-retry-min': 0 },
  { 'delayed-retry-type': 'failed', 'delayed-retry-min': 1, 'delayed-retry-max': 0 },
  { 'delayed-retry-type': 'failed', 'delayed-retry-min': 10, 'delayed-retry-max': 9 },
  { 'delayed-retry-type': 'failed', 'delayed-retry-max': 10 },
  { 'delayed-retry-type': 'failed', 'delayed-retry-min': 1.5 },
  { 'delayed-retry-type': 'failed', 'delayed-retry-min': '1000' },
  { 'delayed-retry-type': 'linear', 'delayed-retry-min': 1 },
  { 'delayed-retry-type': 'disabled' },
];

/**
 * `validate` refuses what the broker refuses: each value goes to the real broker as a policy
 * (matching no queue), and the broker takes it exactly when the rules' table takes it.
 */
describe('policy settings: the broker refuses exactly what broker-refuses-setting refuses', async () => {
  const broker = await brokerVersion();
  const names: string[] = [];
  afterAll(async () => {
    for (const name of names) await management.deletePolicy('/', name).catch(() => undefined);
  });

  async function brokerTakes(definition: Definition): Promise<boolean> {
    const name = `it-settings-${randomBytes(4).toString('hex')}`;
    names.push(name);
    try {
      await management.putPolicy('/', {
        name,
        pattern: `^${name}$`,
        applyTo: 'queues',
        priority: 0,
        definition,
      });
      return true;
    } catch (error) {
      // The broker's 400 names the refused value; anything else is not a refusal.
      if (!/HTTP 400/.test(String(error))) throw error;
      return false;
    }
  }

  it.each(SETTINGS.map((definition) => [JSON.stringify(definition), definition] as const))(
    '%s',
    async (_label, definition) => {
      expect(await brokerTakes(definition)).toBe(refusedSettings(definition).length === 0);
    },
  );

  describe.skipIf(!broker.at([4, 3]))('delayed retry (RabbitMQ 4.3 and later only)', () => {
    it.each(DELAYED_RETRY.map((definition) => [JSON.stringify(definition), definition] as const))(
      '%s',
      async (_label, definition) => {
        expect(await brokerTakes(definition)).toBe(refusedSettings(definition).length === 0);
      },
    );
  });
});
