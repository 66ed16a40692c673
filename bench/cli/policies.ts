import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from '../../policy/random';

/**
 * Policy files for the validate benchmark: varied the way a company's policies would be, from a
 * fixed seed, so every run reads the same files. Each policy has names of its own, so the
 * cross-policy checks find nothing and every rule runs in full; every policy is valid (the run
 * must reach the end), and a few carry warnings, so findings are located and printed as well.
 *
 * What varies: the targets (one, two or all three brokers), the RabbitMQ mode and version, the
 * backoff (exponential or a list of waits), jitter, classification, optional fields, and how the
 * YAML is written (block or flow collections, quoted or plain strings, comments, a folded
 * description, an anchor and its alias, several policies in one file, `.yml` beside `.yaml`).
 */

type Pick = <T>(choices: readonly T[]) => T;

const RABBIT = [
  { mode: 'ttl-queues', version: '3.10.8' },
  { mode: 'ttl-queues', version: '3.13.7' },
  { mode: 'ttl-queues', version: '4.1.4' },
  { mode: 'delivery-time', version: '4.4.0' },
] as const;

function backoff(pick: Pick, index: number, attempts: number): string[] {
  if (index % 3 === 2) {
    const delays = ['1s', '5s', '30s', '2m', '10m', '30m'].slice(0, attempts - 1);
    return index % 2 === 0
      ? ['  backoff:', '    type: list', `    delays: [${delays.join(', ')}]`]
      : ['  backoff:', '    type: list', '    delays:', ...delays.map((delay) => `      - ${delay}`)];
  }
  return [
    '  backoff:',
    '    type: exponential',
    `    initial: ${pick(['500ms', '1s', '2s', '5s'])}`,
    `    multiplier: ${pick([2, 3])}`,
    `    max: ${pick(['1m', '5m', '10m'])}`,
  ];
}

/**
 * The warnings a team has reviewed: fixed waits, and jitter a RabbitMQ before 4.4 cannot apply.
 * One policy in twenty leaves the latter unacknowledged, so the run prints some warnings.
 */
function acknowledge(jitter: string, rabbitVersion: string | undefined, index: number): string[] {
  const codes: string[] = [];
  if (jitter === 'none') codes.push('no-jitter');
  else if (rabbitVersion && rabbitVersion < '4.4' && index % 20 !== 0) codes.push('jitter-not-applied');
  if (codes.length === 0) return [];
  return [
    '  acknowledge:',
    ...codes.flatMap((code) => [`    - code: ${code}`, '      reason: reviewed by the team']),
  ];
}

function picker(seed: number): Pick {
  const next = mulberry32(seed);
  return <T>(choices: readonly T[]) => choices[Math.floor(next() * choices.length)] as T;
}

/** One policy document; `index` makes its names unique and, with `seed`, picks its options. */
export function policyText(index: number, seed = 1): string {
  const pick = picker(seed * 1_000_003 + index);
  const team = `team${index % 10}`;
  const name = `${team}.consumer-${index}`;
  const quote = index % 4 === 0 ? (text: string) => `"${text}"` : (text: string) => text;
  const attempts = pick([3, 4, 5, 6]);
  const jitter = pick(['none', 'full', 'equal', 'full', 'full']);
  const targets = pick([
    ['rabbitmq'],
    ['kafka'],
    ['serviceBus'],
    ['rabbitmq', 'kafka'],
    ['rabbitmq', 'kafka', 'serviceBus'],
  ]);
  const rabbit = pick(RABBIT);
  const anchored = index % 20 === 7;
  const lines = [
    `# ${name}: retries for ${team}'s consumer ${index}.`,
    'apiVersion: retry-topology/v1',
    'kind: RetryPolicy',
    'metadata:',
    `  name: ${quote(name)}`,
    ...(index % 10 === 3
      ? ['  description: >', `    Handles event ${index} for ${team}; folded`, '    over two lines.']
      : [`  description: Handle event ${index} for ${team}.`]),
    `  owner: ${team}`,
    'spec:',
    `  consumer: ${quote(`consumer-${index}`)}`,
    `  maxAttempts: ${attempts}`,
    ...(index % 5 === 1 ? ['  immediate:', '    retries: 1', '    delay: 100ms'] : []),
    ...backoff(pick, index, attempts),
    `  jitter: ${jitter}`,
    ...(index % 6 === 0
      ? ['  classify: {presets: [http-transient], unknown: permanent}']
      : [
          '  classify:',
          `    presets: [${pick(['http-transient', 'http-transient, network-transient', 'network-transient'])}]`,
          '    permanent:',
          `      errorNames: [ValidationError, ${anchored ? '&refused ' : ''}Refused${index}Error]`,
          ...(index % 3 === 0 ? ['      httpStatuses: [400, 422]'] : []),
          '    unknown: permanent',
        ]),
    ...(index % 4 === 1 ? ['  messageTtl: 1d', '  deadline: 12h'] : []),
    ...(index % 7 === 2 ? ['  innerLayers:', '    - name: http-client', '      attempts: 2'] : []),
    ...(index % 9 === 4 ? ['  deadLetter:', '    retention: 14d'] : []),
    '  idempotency:',
    '    idempotent: true',
    `    key: ${anchored ? '*refused' : 'eventId'}`,
    ...acknowledge(jitter, targets.includes('rabbitmq') ? rabbit.version : undefined, index),
    '  targets:',
  ];
  if (targets.includes('rabbitmq'))
    lines.push(
      '    rabbitmq:',
      `      exchange: ${team}.events`,
      `      routingKey: ${quote(`event.${index}`)}`,
      `      queue: ${name}`,
      `      mode: ${rabbit.mode}`,
      `      brokerVersion: "${rabbit.version}"`,
      ...(index % 8 === 5 ? ['      deliveryLimit: 20', '      waitQueueMaxLength: 100000'] : []),
    );
  if (targets.includes('kafka'))
    lines.push(
      '    kafka:',
      `      topic: ${team}.topic-${index}`,
      `      consumerGroup: group-${index}`,
      `      partitions: ${pick([1, 3, 6, 12])}`,
      `      replicationFactor: ${pick([1, 3])}`,
      ...(index % 5 === 2 ? ['      retryRetention: 7d'] : []),
    );
  if (targets.includes('serviceBus'))
    lines.push(
      ...(index % 2 === 0
        ? [
            '    serviceBus:',
            '      entity: queue',
            `      queue: ${team}-queue-${index}`,
            '      lockDuration: 1m',
          ]
        : [`    serviceBus: {entity: subscription, topic: orders, subscription: sub-${index}}`]),
    );
  return `${lines.join('\n')}\n`;
}

/** Writes `count` policies under `root` in ten team folders; returns the number of files. */
export function writePolicies(root: string, count: number, seed = 1): number {
  let files = 0;
  let index = 0;
  while (index < count) {
    // One file in ten holds two or three policies.
    const documents = files % 10 === 9 ? Math.min(2 + (files % 2), count - index) : 1;
    const texts: string[] = [];
    for (let each = 0; each < documents; each++) texts.push(policyText(index++, seed));
    const team = join(root, `team-${files % 10}`, files % 3 === 0 ? 'orders' : '');
    mkdirSync(team, { recursive: true });
    writeFileSync(join(team, `policy-${files}.${files % 7 === 0 ? 'yml' : 'yaml'}`), texts.join('---\n'));
    files++;
  }
  return files;
}
