import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deadLettersCommand } from '../../cli/commands/dead-letters';
import { CONNECTORS, type Connectors } from '../../cli/dead-letters/connect';
import type { DeadLetterEnvironment } from '../../cli/dead-letters/environment';
import { derivePlan, type KafkaPlan, loadPolicyFiles } from '../../policy';
import { deadLetterCommands } from '../../runtime/dead-letters';
import { kafkaDeadLetters } from '../../runtime/kafka';
import { MemoryBroker } from '../runtime/dead-letters/memory-broker';
import { FakeDeadLetterTopic } from '../runtime/kafka/dead-letter-fakes';
import { FakeProducer } from '../runtime/kafka/fakes';

async function run(argv: string[], environment: Partial<DeadLetterEnvironment> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await deadLettersCommand(
    argv,
    { out: (text) => out.push(text), err: (text) => err.push(text) },
    {
      env: {},
      connectors: CONNECTORS,
      now: () => Date.UTC(2026, 0, 1),
      handleSignals: false,
      ...environment,
    },
  );
  return { code, out: out.join(''), err: err.join('\n') };
}

function tempFile(name: string, text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'rt-dl-cli-')), name);
  writeFileSync(file, text);
  return file;
}

async function billingPlan() {
  const { policies } = await loadPolicyFiles(['policies/billing.yaml']);
  return derivePlan((policies[0] as NonNullable<(typeof policies)[0]>).policy);
}

/** A coded error on stderr, no stack trace, and the exit code for its kind. */
function expectCoded(result: { code: number; err: string }, code: string, exit: number) {
  expect(result.err).toContain(`[${code}]`);
  expect(result.err).not.toMatch(/\n\s+at /);
  expect(result.code).toBe(exit);
}

describe('dead-letters: bad input gets a coded error and changes nothing', () => {
  it('an unknown target', async () => {
    expectCoded(await run(['list', 'policies/billing.yaml', '--target', 'sqs']), 'no-target', 2);
    for (const word of ['toString', 'constructor', '__proto__']) {
      const result = await run(['list', 'policies/billing.yaml', '--target', word]);
      expectCoded(result, 'no-target', 2);
      expect(result.err).toContain(`unknown target "${word}": use rabbitmq, kafka or servicebus`);
    }
  });

  it('a plan without the target, and a plan without dead letters', async () => {
    const plan = await billingPlan();
    const kafkaOnly = tempFile(
      'plan.json',
      JSON.stringify({ ...plan, targets: { kafka: plan.targets.kafka } }),
    );
    const noTarget = await run(['list', kafkaOnly, '--target', 'rabbitmq', '--url', 'amqp://127.0.0.1:1']);
    expectCoded(noTarget, 'no-target', 2);
    expect(noTarget.err).toContain('(it has: kafka)');

    const { deadLetterQueue: _dropped, ...rabbit } = plan.targets.rabbitmq as NonNullable<
      typeof plan.targets.rabbitmq
    >;
    const noDeadLetters = tempFile('plan.json', JSON.stringify({ ...plan, targets: { rabbitmq: rabbit } }));
    expectCoded(
      await run(['list', noDeadLetters, '--target', 'rabbitmq', '--url', 'amqp://127.0.0.1:1']),
      'no-dead-letters',
      2,
    );
  });

  it('a file that is not a plan, and a policy file with errors', async () => {
    expectCoded(
      await run(['list', tempFile('x.json', '{"hello": 1}'), '--target', 'kafka']),
      'invalid-plan',
      2,
    );
    expectCoded(
      await run(['list', tempFile('x.json', '{"hello": '), '--target', 'kafka']),
      'invalid-plan',
      2,
    );
    const broken = await run([
      'list',
      tempFile('p.yaml', 'apiVersion: retry-topology/v1\nkind: RetryPolicy\n'),
      '--target',
      'kafka',
    ]);
    expect(broken.code).toBe(1);
    expect(broken.err).toContain('p.yaml');
  });

  it('a YAML file that is neither a policy nor a plan: invalid-plan, one line, like a JSON one', async () => {
    const pulumi = tempFile('Pulumi.yaml', 'name: shop\nruntime: nodejs\ndescription: the shop\n');
    const result = await run(['list', pulumi, '--target', 'kafka']);
    expectCoded(result, 'invalid-plan', 2);
    expect(result.err.trim().split('\n')).toEqual([
      expect.stringContaining('Pulumi.yaml is not a retry policy or a retry-topology plan'),
    ]);
  });

  it('filters and options it cannot read', async () => {
    const base = ['replay', 'policies/billing.yaml', '--target', 'rabbitmq', '--url', 'amqp://127.0.0.1:1'];
    expectCoded(await run([...base, '--reason', 'sad']), 'invalid-filter', 2);
    expectCoded(await run([...base, '--since', 'yesterday']), 'invalid-filter', 2);
    expectCoded(await run([...base, '--rate', '0/s']), 'invalid-option', 2);
    expectCoded(await run([...base, '--limit', '0']), 'invalid-option', 2);
    expectCoded(await run(['list', 'policies/billing.yaml', '--target', 'rabbitmq']), 'invalid-option', 2);
  });

  it.each([['abc'], ['0'], ['-1'], ['1.5']])(
    '--max %s is a filter it cannot read (invalid-filter, as documented), exit 2',
    async (value) => {
      for (const verb of ['list', 'show', 'replay', 'purge']) {
        const result = await run([verb, 'policies/billing.yaml', '--target', 'rabbitmq', '--max', value]);
        expectCoded(result, 'invalid-filter', 2);
        expect(result.err).toContain('--max');
      }
    },
  );

  it.each([
    ['replay', '--rate', '-5', 'invalid-option'],
    ['replay', '--rate', '-5/s', 'invalid-option'],
    ['show', '--skip', '-1', 'invalid-option'],
    ['show', '--limit', '-1', 'invalid-option'],
    ['show', '--preview', '-1', 'invalid-option'],
    ['purge', '--expect', '-1', 'invalid-option'],
    ['list', '--since', '-2h', 'invalid-filter'],
    ['list', '--until', '-2h', 'invalid-filter'],
    ['list', '--policy', '-x', 'invalid-option'],
    ['list', '--target', '-k', 'no-target'],
    ['list', '--format', '-x', 'invalid-option'],
  ])(
    '%s %s %s as the next word gets the coded line %s gives with =, exit 2',
    async (verb, option, value, code) => {
      const rest = [
        '--url',
        'amqp://127.0.0.1:1',
        ...(option === '--target' ? [] : ['--target', 'rabbitmq']),
      ];
      const spaced = await run([verb, 'policies/billing.yaml', option, value, ...rest]);
      const joined = await run([verb, 'policies/billing.yaml', `${option}=${value}`, ...rest]);
      expectCoded(spaced, code, 2);
      expect(spaced).toEqual(joined);
      // The coded line alone: no three-line parser text before the usage.
      expect(spaced.err.split('\n')[0]).toMatch(new RegExp(`^✖ \\[${code}\\] `));
      expect(spaced.err.split('\n')[1] ?? '').toBe('');
    },
  );

  it('an option missing its value before the next option is a coded line, exit 2', async () => {
    const result = await run(['replay', 'policies/billing.yaml', '--target', 'rabbitmq', '--rate', '--yes']);
    expectCoded(result, 'invalid-option', 2);
    expect(result.err.split('\n')[0]).toBe('✖ [invalid-option] --rate needs a value before --yes');
    expect((await run(['list', 'policies/billing.yaml', '--bogus'])).err).toMatch(
      /^✖ \[invalid-option\] unknown option --bogus$/m,
    );
  });

  it('a broker that cannot be reached', async () => {
    const rabbit = await run([
      'list',
      'policies/billing.yaml',
      '--target',
      'rabbitmq',
      '--url',
      'amqp://guest:guest@127.0.0.1:1',
    ]);
    expectCoded(rabbit, 'broker-unreachable', 4);
    expect(rabbit.err).toContain('nothing was changed');
    const kafka = await run([
      'list',
      'policies/billing.yaml',
      '--target',
      'kafka',
      '--brokers',
      '127.0.0.1:1',
    ]);
    expectCoded(kafka, 'broker-unreachable', 4);
  }, 60_000);

  it('a RabbitMQ URL that names another vhost than the plan', async () => {
    expectCoded(
      await run([
        'list',
        'policies/billing.yaml',
        '--target',
        'rabbitmq',
        '--url',
        'amqp://127.0.0.1:1/other',
      ]),
      'invalid-option',
      2,
    );
  });
});

/** Connectors that only count: a check that runs before connecting never reaches them. */
function countingConnectors() {
  const calls: string[] = [];
  const refuse = (target: string) => async () => {
    calls.push(target);
    throw new Error(`connected to ${target}`);
  };
  const connectors: Connectors = {
    rabbitmq: refuse('rabbitmq'),
    kafka: refuse('kafka'),
    serviceBus: refuse('serviceBus'),
  };
  return { calls, connectors };
}

describe('dead-letters: every option is checked before any connection', () => {
  const connection = {
    rabbitmq: ['--url', 'amqp://127.0.0.1:1'],
    kafka: ['--brokers', '127.0.0.1:1'],
    servicebus: ['--connection-string', 'Endpoint=sb://127.0.0.1/;SharedAccessKeyName=a;SharedAccessKey=b'],
  } as const;

  it.each(Object.keys(connection) as Array<keyof typeof connection>)(
    'purge --yes without --expect on %s is expect-required, exit 2, with or without connection settings',
    async (target) => {
      for (const settings of [[], connection[target]]) {
        const { calls, connectors } = countingConnectors();
        const result = await run(
          ['purge', 'policies/billing.yaml', '--target', target, '--yes', ...settings],
          {
            connectors,
          },
        );
        expectCoded(result, 'expect-required', 2);
        expect(result.err).not.toContain('needs --');
        expect(calls).toEqual([]);
      }
    },
  );

  it('replay --keep-attempts where the broker counts attempts is refused before connecting', async () => {
    const policy = tempFile(
      'qdr.yaml',
      readFileSync('policies/billing.yaml', 'utf8')
        .replace('mode: ttl-queues', 'mode: quorum-delayed-retry')
        .replace('brokerVersion: "3.10.8"', 'brokerVersion: "4.3.0"'),
    );
    const { calls, connectors } = countingConnectors();
    const result = await run(['replay', policy, '--target', 'rabbitmq', '--keep-attempts', '--yes'], {
      connectors,
    });
    expectCoded(result, 'invalid-option', 2);
    expect(result.err).toContain('--keep-attempts cannot apply');
    expect(calls).toEqual([]);
  });

  it('purge --yes without --expect never opens a connection to a broker that would never answer', async () => {
    // The real connectors against a listener that accepts and never answers: before the fix the
    // command waited there for amqplib's 10 s timeout and blamed the broker (exit 4).
    const accepted: Socket[] = [];
    const server = createServer((socket) => void accepted.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const result = await run([
        'purge',
        'policies/billing.yaml',
        '--target',
        'rabbitmq',
        '--url',
        `amqp://guest:guest@127.0.0.1:${port}`,
        '--yes',
      ]);
      expectCoded(result, 'expect-required', 2);
      expect(accepted).toHaveLength(0);
    } finally {
      for (const socket of accepted) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('dead-letters output is safe to print', () => {
  // OSC title, BEL, clear screen, a C1 CSI and a right-to-left override.
  const hostile = '\u001b]0;pwned\u0007\u001b[2J\u009b2J\u202eevil';
  const broker = new MemoryBroker().add(1, () => ({
    reason: 'permanent',
    errorName: `Evil${hostile}`,
    errorMessage: `boom ${hostile}`,
    messageId: `id${hostile}`,
    headers: { [`x-${hostile}`]: `v${hostile}` },
    body: Buffer.from(`{"note":"${hostile}"}`),
    deadLetteredAt: Date.UTC(2025, 11, 31),
  }));
  const connectors = {
    rabbitmq: async () => ({ commands: deadLetterCommands(broker), close: async () => {} }),
  } as unknown as Connectors;
  const args = ['policies/billing.yaml', '--target', 'rabbitmq'];

  it('escapes control and bidirectional characters in list, show, Markdown and JSON', async () => {
    for (const argv of [
      ['list', ...args],
      ['show', ...args],
      ['list', ...args, '--format', 'markdown'],
      ['list', ...args, '--format', 'json'],
      ['show', ...args, '--format', 'json'],
    ]) {
      const result = await run(argv, { connectors });
      expect(result.code, result.err).toBe(0);
      const raw = [...result.out].filter((char) => ['\u0007', '\u001b', '\u009b', '\u202e'].includes(char));
      expect(raw, argv.join(' ')).toEqual([]);
      expect(result.out).toMatch(/\\(x1b|u001b)\]0;pwned\\(x07|u0007)/);
    }
    const markdown = await run(['list', ...args, '--format', 'markdown'], { connectors });
    expect(markdown.out).toContain('`Evil\\x1b]0;pwned\\x07\\x1b[2J\\x9b2J\\u202eevil`');
  });
});

describe('dead-letters replay progress', () => {
  const broker = new MemoryBroker().add(5);
  const connectors = {
    rabbitmq: async () => ({ commands: deadLetterCommands(broker), close: async () => {} }),
  } as unknown as Connectors;
  const argv = ['replay', 'policies/billing.yaml', '--target', 'rabbitmq', '--rate', '1000/s'];

  it('draws a bar on the terminal only, redrawn in place, ending at the total and a new line', async () => {
    const drawn: string[] = [];
    const terminal = { write: (text: string) => void drawn.push(text) };
    const dry = await run(argv, { connectors, terminal });
    expect(dry.code, dry.err).toBe(0);
    expect(drawn).toEqual([]); // a dry run sends nothing, so it draws nothing

    const result = await run([...argv, '--yes'], { connectors, terminal, now: Date.now });
    expect(result.code, result.err).toBe(0);
    expect(broker.replayed).toHaveLength(5);
    expect(drawn.length).toBeGreaterThanOrEqual(2);
    for (const line of drawn.slice(0, -1)) expect(line.startsWith('\r\u001b[2Kreplaying [')).toBe(true);
    expect(drawn.at(-2)).toContain('] 5/5');
    expect(drawn.at(-1)).toBe('\n');
    // The summary goes to stdout, the bar never does.
    expect(result.out).not.toContain('\r');
    expect(result.out).toContain('replayed 5');
  });
});

describe('dead-letters warnings', () => {
  it('prints what went wrong without failing the command: a Kafka group it could not delete', async () => {
    const plan = await billingPlan();
    const topic = new FakeDeadLetterTopic((plan.targets.kafka as KafkaPlan).deadLetterTopic, 3);
    topic.add(0);
    topic.deleteFailure = new Error('Connection error: connect ECONNREFUSED 127.0.0.1:9092');
    const connectors = {
      kafka: async (given, _settings, warn) => ({
        commands: kafkaDeadLetters(given, {
          admin: topic.admin(),
          producer: new FakeProducer([]),
          consumer: (groupId) => topic.consumer(groupId),
          ...(warn ? { onWarning: warn } : {}),
        }),
        close: async () => {},
      }),
    } as Partial<Connectors> as Connectors;
    const result = await run(['list', 'policies/billing.yaml', '--target', 'kafka', '--format', 'json'], {
      connectors,
    });
    expect(result.code, result.err).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({ total: 1 });
    expect(result.err).toMatch(/^⚠ the consumer group \S+\.replay\.browse\.\S+, which this command read/);
    expect(result.err).toContain('ECONNREFUSED');
  });
});
