import { describe, expect, it } from 'vitest';
import { UsageError } from '../../cli/args';
import { RetryTopologyError } from '../../policy';
import { cli } from './cli-harness';

describe('a mistake in the command line is a UsageError: one line, where the options are, exit 2', () => {
  it('UsageError is a RetryTopologyError of code usage, with the error underneath as its cause', () => {
    const cause = new Error('node:util');
    const error = new UsageError('unknown option --bogus', { cause });
    expect(error).toBeInstanceOf(RetryTopologyError);
    expect([error.name, error.code, error.message, error.cause]).toEqual([
      'UsageError',
      'usage',
      'unknown option --bogus',
      cause,
    ]);
  });

  it.each([
    // node:util's own parse errors, said in one line by the one parser every command uses.
    [['validate', 'policies/billing.yaml', '--strict=yes'], "✖ Option '--strict' does not take an argument"],
    [['plan', 'policies/billing.yaml', '--format'], "✖ Option '--format <value>' argument missing"],
    [['validate', '-x', 'policies'], '✖ unknown option -x'],
    // Once printed by hand with a returned exit 2; now thrown like every other usage error.
    [
      ['render', 'policies/billing.yaml', '--format', 'svg', '--target', 'sqs'],
      '✖ unknown target "sqs": use rabbitmq, kafka or servicebus',
    ],
    [
      ['plan', 'policies/billing.yaml', '--policy', 'nope'],
      '✖ no policy named "nope" in policies/billing.yaml (it has: "billing.order-placed")',
    ],
    [
      ['render', 'policies/shipping.yaml', '--format', 'svg'],
      '✖ policies/shipping.yaml holds 2 policies; pick one with --policy ("shipping.order-paid", "shipping.label-printed")',
    ],
    [
      ['simulate', 'policies/billing.yaml', '--outage', '1s', '--rate', '1/h'],
      '✖ at 0.000278/s no message arrives during a 1s outage (0.00028 expected); raise --rate or --outage, or add --backlog',
    ],
  ])('%j', async (argv, line) => {
    const result = await cli(...argv);
    expect(result.code).toBe(2);
    expect(result.out).toBe('');
    expect(result.err.split('\n')).toEqual([line, `  retry-topology ${argv[0]} --help shows every option`]);
  });

  it('dead-letters says a usage error with the code its docs list, exit 2, before any connection', async () => {
    for (const [argv, line] of [
      [['list', 'policies/billing.yaml', '--bogus'], '✖ [invalid-option] unknown option --bogus'],
      [
        ['list', 'policies/billing.yaml', '--target', 'sqs'],
        '✖ [no-target] unknown target "sqs": use rabbitmq, kafka or servicebus',
      ],
      [
        ['list', 'policies/billing.yaml', '--target', 'kafka', '--since', 'soon'],
        '✖ [invalid-filter] --since needs an ISO date or time (2026-05-01T12:00Z) or a duration ago (2h), got "soon"',
      ],
      [
        ['list', 'policies/billing.yaml', '--target', 'rabbitmq', '--url', 'amqp://127.0.0.1:1/other'],
        '✖ [invalid-option] the URL\'s vhost "other" is not the plan\'s "/"',
      ],
    ] as const) {
      const result = await cli('dead-letters', ...argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.err.split('\n')[0]).toBe(line);
      expect(result.err).not.toMatch(/\n\s+at /);
    }
  });
});
