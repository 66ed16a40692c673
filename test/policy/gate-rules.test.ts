import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  checkDocument,
  derivePlan,
  formatPath,
  type Issue,
  loadPolicyFiles,
  loadPolicyText,
  parsePolicy,
} from '../../policy';
import { changed, cleanPolicy, withChanges } from './fixtures';

/** Findings that need more than one policy, counting as brokers count, and where dead letters are. */

type Doc = Record<string, unknown>;

/** A clean policy with a name, its own entities, and the given changes. */
function policy(name: string, changes: Array<[ReadonlyArray<string | number>, unknown]> = []): Doc {
  const base = withChanges([
    [['metadata', 'name'], name],
    [['spec', 'targets', 'rabbitmq', 'queue'], name],
    [['spec', 'targets', 'kafka', 'consumerGroup'], name],
    [['spec', 'targets', 'serviceBus', 'queue'], name],
  ]);
  return changes.reduce<Doc>((doc, [path, value]) => changed(path, value, doc), base);
}

async function loadAll(...docs: Doc[]) {
  return loadPolicyFiles(docs.map((doc, index) => ({ file: `p${index}.yaml`, content: stringify(doc) })));
}

const codes = (issues: readonly Issue[]) => issues.map((found) => found.code);
const collisions = (issues: readonly Issue[]) => issues.filter((found) => found.code === 'name-collision');

describe('names across policies (item 4)', () => {
  it('two clean policies of their own pass together', async () => {
    const { issues } = await loadAll(policy('alpha'), policy('beta'));
    expect(codes(issues)).toEqual([]);
  });

  it('a queue named like another policy is caught: both would own one queue and its RabbitMQ policy', async () => {
    const alpha = policy('alpha', [[['spec', 'targets', 'rabbitmq', 'queue'], 'heldout.beta']]);
    const beta = withChanges([
      [['metadata', 'name'], 'heldout.beta'],
      [['spec', 'targets', 'rabbitmq', 'queue'], undefined],
      [['spec', 'targets', 'kafka', 'consumerGroup'], 'beta'],
      [['spec', 'targets', 'serviceBus', 'queue'], 'beta'],
    ]);
    const { issues } = await loadAll(alpha, beta);
    const found = collisions(issues);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      file: 'p1.yaml',
      policy: 'heldout.beta',
      path: ['spec', 'targets', 'rabbitmq', 'queue'],
    });
    expect(found[0]?.line).toBeGreaterThan(0);
    expect(found[0]?.message).toContain('rabbitmq queue "heldout.beta"');
    expect(found[0]?.message).toContain(
      'of policy "alpha" (p0.yaml:1): both policies would provision and own it',
    );
  });

  it("a Kafka dead-letter topic named like another policy's topic is caught", async () => {
    const alpha = policy('alpha', [[['spec', 'deadLetter', 'name'], 'beta.dlt']]);
    const { issues } = await loadAll(alpha, policy('beta'));
    expect(collisions(issues).map((found) => formatPath(found.path))).toEqual(['metadata.name']);
    expect(collisions(issues)[0]?.message).toContain('kafka topic "beta.dlt"');
  });

  it('Kafka topics that differ only in "." and "_" collide (Kafka refuses the second)', async () => {
    const { issues } = await loadAll(policy('a_b'), policy('a.b'));
    const kafka = collisions(issues).filter((found) => found.message.startsWith('kafka topic'));
    expect(kafka.length).toBeGreaterThan(0);
    expect(kafka[0]?.message).toContain(
      'kafka topic "a.b.dlt" is the same name as the kafka topic "a_b.dlt"',
    );
    expect(kafka[0]?.message).toContain('differ only in "." and "_"');
  });

  it('inside one policy too: a dead-letter topic named like a retry topic after the metric-name rule', () => {
    const { issues } = loadPolicyText(
      stringify(policy('orders', [[['spec', 'deadLetter', 'name'], 'orders_retry_1']])),
    );
    expect(collisions(issues)[0]?.message).toContain('differ only in "." and "_"');
  });

  it('Service Bus names ignore case', async () => {
    const alpha = policy('alpha', [[['spec', 'targets', 'serviceBus', 'queue'], 'Orders']]);
    const beta = policy('beta', [[['spec', 'targets', 'serviceBus', 'queue'], 'orders']]);
    const found = collisions((await loadAll(alpha, beta)).issues);
    expect(found.map((each) => formatPath(each.path))).toEqual(['spec.targets.serviceBus.queue']);
    expect(found[0]?.message).toContain('Service Bus names ignore case');
  });

  it('a shared source exchange and topic are fine; declaring the exchange twice is not', async () => {
    const shared = await loadAll(policy('alpha'), policy('beta'));
    expect(codes(shared.issues)).toEqual([]);
    const declared = (name: string) =>
      policy(name, [[['spec', 'targets', 'rabbitmq', 'declareExchange'], true]]);
    const found = collisions((await loadAll(declared('alpha'), declared('beta'))).issues);
    expect(found.map((each) => formatPath(each.path))).toEqual(['spec.targets.rabbitmq.exchange']);
  });

  it('one consumer group for two policies collides (their retry groups would be one)', async () => {
    const beta = policy('beta', [[['spec', 'targets', 'kafka', 'consumerGroup'], 'alpha']]);
    const found = collisions((await loadAll(policy('alpha'), beta)).issues);
    expect(found.map((each) => formatPath(each.path))).toEqual(['spec.targets.kafka.consumerGroup']);
  });

  it("a Kafka topic under another policy's retry prefix is caught: that consumer's prefixed ACLs would cover it", async () => {
    // alpha's consumer may read and write alpha.retry.*; alpha.retry.eu's topics all start with that.
    const { issues } = await loadAll(policy('alpha'), policy('alpha.retry.eu'));
    const found = collisions(issues);
    expect(found.map((each) => [each.file, formatPath(each.path)])).toEqual([['p1.yaml', 'metadata.name']]);
    expect(found[0]?.message).toBe(
      'Kafka topic "alpha.retry.eu.dlt" starts with "alpha.retry.", policy "alpha"\'s (p0.yaml:1) retry-topic prefix: the prefixed ACLs of that policy\'s consumer would cover it',
    );
    // A name that only looks alike is outside the prefix.
    expect(codes((await loadAll(policy('alpha'), policy('alpha.retryable'))).issues)).toEqual([]);
  });

  it("inside one policy too: a dead-letter topic under the policy's own retry prefix", () => {
    const { issues } = loadPolicyText(
      stringify(policy('orders', [[['spec', 'deadLetter', 'name'], 'orders.retry.parked']])),
    );
    expect(collisions(issues).map((each) => [formatPath(each.path), each.message])).toEqual([
      [
        'spec.deadLetter.name',
        'Kafka topic "orders.retry.parked" starts with "orders.retry.", its own retry-topic prefix: the prefixed ACLs of that policy\'s consumer would cover it',
      ],
    ]);
  });

  it('RabbitMQ names are per vhost', async () => {
    const beta = policy('beta', [
      [['spec', 'targets', 'rabbitmq', 'queue'], 'alpha'],
      [['spec', 'targets', 'rabbitmq', 'vhost'], 'other'],
    ]);
    expect(collisions((await loadAll(policy('alpha'), beta)).issues)).toEqual([]);
  });
});

describe('limits counted as the broker counts (item 5)', () => {
  it('an AMQP routing key of 200 × "é" is 400 bytes: over the 255-byte shortstr', () => {
    const { issues } = checkOne(changed(['spec', 'targets', 'rabbitmq', 'routingKey'], 'é'.repeat(200)));
    expect(issues).toMatchObject([
      { code: 'name-too-long', path: ['spec', 'targets', 'rabbitmq', 'routingKey'] },
    ]);
    expect(issues[0]?.message).toContain('400 bytes of UTF-8 (200 characters); AMQP allows 255 bytes');
    expect(checkOne(changed(['spec', 'targets', 'rabbitmq', 'routingKey'], 'é'.repeat(127))).issues).toEqual(
      [],
    );
  });

  it('a Service Bus topic name and forwardDeadLettersTo are length-checked (260)', () => {
    const subscription = { entity: 'subscription', topic: 't'.repeat(261), subscription: 'billing' };
    const topic = checkOne(changed(['spec', 'targets', 'serviceBus'], subscription));
    expect(topic.issues).toMatchObject([
      { code: 'name-too-long', path: ['spec', 'targets', 'serviceBus', 'topic'] },
    ]);
    const forward = checkOne(
      changed(['spec', 'targets', 'serviceBus', 'forwardDeadLettersTo'], 'f'.repeat(261)),
    );
    expect(forward.issues).toMatchObject([
      { code: 'name-too-long', path: ['spec', 'targets', 'serviceBus', 'forwardDeadLettersTo'] },
    ]);
  });

  it('a Kafka consumer group is not held to the 249-character topic limit', () => {
    const group = 'g'.repeat(300);
    expect(checkOne(changed(['spec', 'targets', 'kafka', 'consumerGroup'], group)).issues).toEqual([]);
  });

  it('bytes that are not UTF-8 are refused with their line and column, not turned into U+FFFD', async () => {
    const text = stringify(cleanPolicy()).replace('consumer: billing', 'consumer: caf\u00e9');
    const latin1 = Buffer.from(text, 'latin1');
    const { issues, policies } = await loadPolicyFiles([{ file: 'latin1.yaml', content: latin1 }]);
    expect(policies).toEqual([]);
    const line = text.split('\n').findIndex((each) => each.includes('café')) + 1;
    expect(issues).toEqual([
      expect.objectContaining({ code: 'invalid-encoding', file: 'latin1.yaml', line, column: 16 }),
    ]);
    expect(issues[0]?.message).toContain('byte 0xE9 is not UTF-8');
  });

  it('a binary file gives one finding, not thousands', async () => {
    const bytes = Buffer.alloc(140_000);
    for (let index = 0; index < bytes.length; index++) bytes[index] = (index * 7919) % 256;
    const { issues } = await loadPolicyFiles([{ file: 'blob.yaml', content: bytes }]);
    expect(issues).toHaveLength(1);
    expect(issues[0]?.code).toBe('invalid-encoding');
  });

  it('a routing key with a control character is refused (item 11)', () => {
    const { issues } = checkOne(changed(['spec', 'targets', 'rabbitmq', 'routingKey'], 'order\u0001placed'));
    expect(issues).toMatchObject([
      { code: 'name-invalid', path: ['spec', 'targets', 'rabbitmq', 'routingKey'] },
    ]);
  });
});

function checkOne(doc: unknown) {
  return loadPolicyText(stringify(doc), 'one.yaml');
}

describe('Service Bus dead letters are where the plan says (item 6)', () => {
  const subscription = { entity: 'subscription', topic: 'orders', subscription: 'billing' };

  it("on a subscription, exhausted messages are in the retry queue's own $deadletterqueue", () => {
    const plan = derivePlan(parsePolicy(changed(['spec', 'targets', 'serviceBus'], subscription) as never));
    const target = plan.targets.serviceBus;
    expect(target?.deadLetter).toBe('billing.order-placed.retry/$deadletterqueue');
    expect(target?.deadLetterQueues).toEqual([
      {
        path: 'orders/subscriptions/billing/$deadletterqueue',
        from: 'orders/subscriptions/billing',
        attempts: { from: 1, to: 1 },
      },
      {
        path: 'billing.order-placed.retry/$deadletterqueue',
        from: 'billing.order-placed.retry',
        attempts: { from: 2, to: 4 },
      },
    ]);
  });

  it('a queue that schedules on itself has one dead-letter subqueue', () => {
    const plan = derivePlan(parsePolicy(cleanPolicy()));
    expect(plan.targets.serviceBus?.deadLetterQueues).toEqual([
      { path: 'billing-orders/$deadletterqueue', from: 'billing-orders', attempts: { from: 1, to: 4 } },
    ]);
  });

  it('forwardDeadLettersTo gathers both', () => {
    const forwarded = changed(['spec', 'targets', 'serviceBus'], {
      ...subscription,
      forwardDeadLettersTo: 'dead-letters',
    });
    const plan = derivePlan(parsePolicy(forwarded as never));
    expect(plan.targets.serviceBus?.deadLetter).toBe('dead-letters');
    expect(plan.targets.serviceBus?.deadLetterQueues.map((place) => place.path)).toEqual([
      'dead-letters',
      'dead-letters',
    ]);
  });
});

describe('HTTP 4xx listed as transient (item 7)', () => {
  it('warns for 400–499 other than 408 and 429, at the status', () => {
    const { issues } = checkOne(
      changed(['spec', 'classify', 'transient'], { httpStatuses: [408, 429, 503, 404, 409] }),
    );
    expect(issues).toMatchObject([
      {
        code: 'transient-client-error',
        severity: 'warning',
        path: ['spec', 'classify', 'transient', 'httpStatuses', 3],
      },
    ]);
    expect(issues[0]?.message).toContain('HTTP 404, 409 are listed as transient');
  });

  it('408 and 429, and a status also listed as permanent, do not warn', () => {
    const doc = withChanges([
      [['spec', 'classify', 'transient'], { httpStatuses: [408, 429, 409] }],
      [['spec', 'classify', 'permanent'], { httpStatuses: [409] }],
    ]);
    expect(checkOne(doc).issues).toEqual([]);
  });
});

describe('acknowledging a reviewed warning (item 8)', () => {
  const rabbit313 = (mode: Doc) =>
    withChanges([
      [['spec', 'targets', 'rabbitmq', 'mode'], 'ttl-queues'],
      [['spec', 'targets', 'rabbitmq', 'brokerVersion'], '3.13.7'],
      ...Object.entries(mode).map(([key, value]) => [['spec', key], value] as [string[], unknown]),
    ]);

  it('below RabbitMQ 4.4 every jitter setting warns: the gate could never pass --strict', () => {
    expect(codes(checkOne(rabbit313({ jitter: 'none' })).issues)).toEqual(['no-jitter']);
    expect(codes(checkOne(rabbit313({ jitter: 'full' })).issues)).toEqual(['jitter-not-applied']);
  });

  it('an acknowledgement with a reason turns that warning into a note that carries the reason', () => {
    const reason = 'RabbitMQ 3.13 until the 4.4 upgrade; consumer concurrency is capped at 4';
    const doc = rabbit313({ jitter: 'full', acknowledge: [{ code: 'jitter-not-applied', reason }] });
    const { issues } = checkOne(doc);
    expect(issues).toMatchObject([
      {
        code: 'jitter-not-applied',
        severity: 'note',
        acknowledged: reason,
        path: ['spec', 'targets', 'rabbitmq', 'mode'],
      },
    ]);
    expect(derivePlan(parsePolicy(doc as never)).findings).toMatchObject([
      { severity: 'note', acknowledged: reason },
    ]);
  });

  it('only that code: another warning stays a warning', () => {
    const doc = rabbit313({
      jitter: 'none',
      acknowledge: [{ code: 'no-jitter', reason: 'fixed waits on purpose' }],
      classify: { presets: ['http-transient'], transient: { httpStatuses: [404] } },
    });
    const severities = Object.fromEntries(checkOne(doc).issues.map((found) => [found.code, found.severity]));
    expect(severities).toEqual({ 'no-jitter': 'note', 'transient-client-error': 'warning' });
  });

  it('needs a reason, and a known warning code (not an error)', () => {
    // The rules still run beside the schema error; the refused acknowledgement accepts nothing.
    const found = (doc: unknown) => checkOne(doc).issues.map((each) => [each.code, each.path.join('.')]);
    expect(found(rabbit313({ acknowledge: [{ code: 'jitter-not-applied', reason: '  ' }] }))).toEqual([
      ['invalid-format', 'spec.acknowledge.0.reason'],
      ['jitter-not-applied', 'spec.targets.rabbitmq.mode'],
    ]);
    expect(found(rabbit313({ acknowledge: [{ code: 'retry-window-exceeds-ttl', reason: 'no' }] }))).toEqual([
      ['invalid-value', 'spec.acknowledge.0.code'],
      ['jitter-not-applied', 'spec.targets.rabbitmq.mode'],
    ]);
  });

  it('an acknowledgement that matches nothing is a warning, located at its code', () => {
    const { issues } = checkOne(
      rabbit313({ jitter: 'full', acknowledge: [{ code: 'no-jitter', reason: 'old reason' }] }),
    );
    const unused = issues.find((found) => found.code === 'acknowledgement-unused');
    expect(unused).toMatchObject({ severity: 'warning', path: ['spec', 'acknowledge', 0, 'code'] });
    expect(unused?.line).toBeGreaterThan(0);
  });
});

describe('an acknowledgement of a warning that is an error on this policy', () => {
  const acksOne = (environment: string | undefined) =>
    checkDocument(
      withChanges([
        [['metadata', 'environment'], environment],
        [['spec', 'targets', 'kafka', 'acks'], 1],
        [['spec', 'acknowledge'], [{ code: 'acks-below-all', reason: 'the partner tolerates a lost copy' }]],
      ]),
    ).issues;

  it('in production: the error stands, and the acknowledgement says errors cannot be acknowledged', () => {
    const issues = acksOne('production');
    expect(issues.find((found) => found.code === 'acks-below-all')).toMatchObject({ severity: 'error' });
    const unused = issues.find((found) => found.code === 'acknowledgement-unused');
    expect(unused).toMatchObject({ severity: 'warning', path: ['spec', 'acknowledge', 0, 'code'] });
    expect(unused?.message).toBe(
      '"acks-below-all" is an error on a policy marked for production, and only warnings can be acknowledged: fix what it reports (the acknowledgement changes nothing here)',
    );
    expect(unused?.message).not.toContain('does not fire');
  });

  it('elsewhere the same acknowledgement is used: the warning becomes a note', () => {
    const issues = acksOne('staging');
    expect(issues.find((found) => found.code === 'acks-below-all')).toMatchObject({
      severity: 'note',
      acknowledged: 'the partner tolerates a lost copy',
    });
    expect(issues.map((found) => found.code)).not.toContain('acknowledgement-unused');
  });
});

describe('located findings (item 14)', () => {
  it('duplicate-policy-name points at metadata.name, not the document start', () => {
    const text = `${stringify(cleanPolicy())}---\n# the same again\n${stringify(cleanPolicy())}`;
    const found = loadPolicyText(text, 'two.yaml').issues.filter(
      (each) => each.code === 'duplicate-policy-name',
    );
    expect(found).toHaveLength(1);
    const lines = text.split('\n');
    expect(lines[(found[0]?.line ?? 0) - 1]?.slice((found[0]?.column ?? 1) - 1)).toBe('billing.order-placed');
  });

  it("an alias to an anchor of another document has the alias's line", () => {
    const first = stringify(cleanPolicy()).replace('consumer: billing', 'consumer: &who billing');
    const second = stringify(changed(['metadata', 'name'], 'other')).replace(
      'consumer: billing',
      'consumer: *who',
    );
    const text = `${first}---\n${second}`;
    const found = loadPolicyText(text, 'alias.yaml').issues.find((each) => each.code === 'yaml-syntax');
    expect(found?.message).toContain('Unresolved alias');
    const line = text.split('\n').findIndex((each) => each.includes('*who')) + 1;
    expect(found).toMatchObject({ line, column: 13 });
  });
});
