import { describe, expect, it } from 'vitest';
import { management, rabbitPlan, uniqueName } from './support';

/**
 * Why the plan keeps broker-version features in policies: a quorum queue *argument* an older
 * broker does not know is accepted and silently ignored (checked on 3.10.8), but a policy with
 * keys it does not know is refused. So even a brokerVersion that lies fails loudly at deploy.
 */
describe('quorum-delayed-retry settings on an older broker', () => {
  it('are refused, not ignored, because they travel in a policy', async () => {
    const plan = rabbitPlan(uniqueName('gate'), {}, { mode: 'quorum-delayed-retry', brokerVersion: '4.3.0' });
    const main = plan.targets.rabbitmq?.policies[0];
    if (!main) throw new Error('no main queue policy');
    expect(main.definition['delayed-retry-type']).toBe('failed');
    const overview = await fetch('http://127.0.0.1:15672/api/overview', {
      headers: { authorization: `Basic ${Buffer.from('guest:guest').toString('base64')}` },
    }).then((response) => response.json() as Promise<{ rabbitmq_version: string }>);
    // The fact belongs to brokers before 4.3; on a newer one this test has nothing to show.
    expect(overview.rabbitmq_version.startsWith('3.')).toBe(true);
    await expect(management.putPolicy('/', main)).rejects.toThrow(/not recognised policy settings/);
    await management.deletePolicy('/', main.name);
  });
});
