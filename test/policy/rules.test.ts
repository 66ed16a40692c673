import { describe, expect, it } from 'vitest';
import { checkDocument } from '../../policy';
import { withChanges } from './fixtures';

const T = ['spec', 'targets'] as const;

function codesOf(document: unknown): string[] {
  return checkDocument(document).issues.map((found) => found.code);
}

describe('rules beyond one code per case', () => {
  it('measures the window with the broker’s linear waits in quorum-delayed-retry mode', () => {
    // [10s, 1s, 1s] is 12 s as written, but the broker waits min(10s × n, 10s): 30 s.
    const document = withChanges([
      [['spec', 'backoff'], { type: 'list', delays: ['10s', '1s', '1s'] }],
      [['spec', 'immediate'], { retries: 0 }],
      [['spec', 'deadline'], '20s'],
      [[...T, 'rabbitmq', 'mode'], 'quorum-delayed-retry'],
      [[...T, 'rabbitmq', 'brokerVersion'], '4.3.0'],
    ]);
    expect(codesOf(document)).toContain('retry-window-exceeds-deadline');
    const asWritten = withChanges([
      [['spec', 'backoff'], { type: 'list', delays: ['10s', '1s', '1s'] }],
      [['spec', 'immediate'], { retries: 0 }],
      [['spec', 'deadline'], '20s'],
    ]);
    expect(codesOf(asWritten)).not.toContain('retry-window-exceeds-deadline');
  });

  it('finds a source exchange named like the dead-letter exchange', () => {
    const found = checkDocument(
      withChanges([[[...T, 'rabbitmq', 'exchange'], 'billing.order-placed.dlx']]),
    ).issues;
    expect(found.find((each) => each.code === 'name-collision')?.path).toEqual(['metadata', 'name']);
  });

  it('reports every finding of a policy with several problems at once', () => {
    const document = withChanges([
      [['spec', 'jitter'], 'none'],
      [['spec', 'deadline'], '1s'],
      [['spec', 'idempotency'], { idempotent: false }],
      [[...T, 'rabbitmq', 'overflow'], 'drop-head'],
    ]);
    expect(codesOf(document).sort()).toEqual([
      'at-least-once-needs-reject-publish',
      'no-jitter',
      'non-idempotent-retry',
      'retry-window-exceeds-deadline',
    ]);
  });
});
