import { type Issue, type IssuePath, issue } from '../issues';
import { entityNames, NAME_LIMITS, type NamedEntity } from '../plan/names';
import type { Rule } from './context';

/**
 * Broker limits on every name a policy produces, counted the way each broker counts (AMQP in
 * bytes of UTF-8, Kafka and Service Bus in characters), and names that clash inside one policy.
 * Clashes between policies are checked where policies are loaded together (cross-policy.ts).
 */

/** Control characters: brokers refuse many of them, and they break logs, terminals and XML. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function entityLabel(entity: Pick<NamedEntity, 'target' | 'kind' | 'name'>): string {
  return `${entity.target} ${entity.kind} "${entity.name}"`;
}

function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** An AMQP shortstr that is not a broker name: the binding's routing key, the vhost. */
function shortstr(text: string, what: string, path: IssuePath): Issue[] {
  const out: Issue[] = [];
  const size = bytes(text);
  if (size > NAME_LIMITS.rabbitmq.maxBytes)
    out.push(
      issue(
        'name-too-long',
        path,
        `the ${what} is ${size} bytes of UTF-8 (${[...text].length} characters); AMQP allows ${NAME_LIMITS.rabbitmq.maxBytes} bytes`,
      ),
    );
  if (CONTROL.test(text))
    out.push(issue('name-invalid', path, `the ${what} holds a control character; write it without one`));
  return out;
}

function limits(entity: NamedEntity): Issue[] {
  const label = entityLabel(entity);
  const out: Issue[] = [];
  const tooLong = (size: string, max: string) =>
    out.push(issue('name-too-long', entity.path, `${label} is ${size}; ${max}`));
  const invalid = (why: string) => out.push(issue('name-invalid', entity.path, `${label}: ${why}`));
  switch (entity.target) {
    case 'rabbitmq': {
      const size = bytes(entity.name);
      if (size > NAME_LIMITS.rabbitmq.maxBytes)
        tooLong(`${size} bytes`, `RabbitMQ allows ${NAME_LIMITS.rabbitmq.maxBytes} bytes`);
      // The Pulumi provider sends policy values that look like integers as numbers, and a
      // dead-letter routing key must be text.
      if (/^-?\d+$/.test(entity.name)) invalid('an all-digit name would reach the broker as a number');
      if (entity.owned && entity.name.startsWith(NAME_LIMITS.rabbitmq.reservedPrefix))
        invalid('names starting with "amq." are reserved by the broker, which refuses to declare them');
      break;
    }
    case 'kafka': {
      if (entity.kind === 'group') {
        const size = bytes(entity.name);
        if (size > NAME_LIMITS.kafka.groupMaxBytes)
          tooLong(`${size} bytes`, `a Kafka group id holds at most ${NAME_LIMITS.kafka.groupMaxBytes}`);
        break;
      }
      const { maxChars, pattern } = NAME_LIMITS.kafka;
      if (entity.name.length > maxChars)
        tooLong(`${entity.name.length} characters`, `Kafka allows ${maxChars}`);
      if (!pattern.test(entity.name) || entity.name === '.' || entity.name === '..')
        invalid('Kafka allows only letters, digits, ".", "_" and "-"');
      break;
    }
    case 'serviceBus': {
      const limitsOf = NAME_LIMITS.serviceBus;
      const subscription = entity.kind === 'subscription';
      const max = subscription ? limitsOf.subscriptionMaxChars : limitsOf.maxChars;
      if (entity.name.length > max) tooLong(`${entity.name.length} characters`, `Service Bus allows ${max}`);
      if (!(subscription ? limitsOf.subscriptionPattern : limitsOf.pattern).test(entity.name))
        invalid(
          `Service Bus allows letters, digits, ".", "_", "-"${subscription ? '' : ' and "/"'}, starting and ending with a letter or digit`,
        );
      break;
    }
  }
  return out;
}

/** Two names in one scope that the broker would take for one entity. */
export function clash(entity: NamedEntity, other: NamedEntity): string {
  const same = entity.name === other.name;
  const why =
    entity.target === 'kafka' && !same
      ? ': Kafka refuses topics whose names differ only in "." and "_" (their metric names are the same)'
      : entity.target === 'serviceBus' && !same
        ? ': Service Bus names ignore case'
        : '';
  return `${entityLabel(entity)} is the same ${entity.kind === other.kind ? 'name' : 'entity'} as the ${entityLabel(other)}${why}`;
}

const names: Rule = ({ policy }) => {
  const out: Issue[] = [];
  const { rabbitmq } = policy.targets;
  if (rabbitmq) {
    out.push(...shortstr(rabbitmq.routingKey, 'routing key', ['spec', 'targets', 'rabbitmq', 'routingKey']));
    out.push(...shortstr(rabbitmq.vhost, 'vhost', ['spec', 'targets', 'rabbitmq', 'vhost']));
  }
  const seen = new Map<string, NamedEntity>();
  for (const entity of entityNames(policy)) {
    out.push(...limits(entity));
    const key = `${entity.target}\u0000${entity.scope}\u0000${entity.key}`;
    const earlier = seen.get(key);
    if (earlier) {
      const where = earlier.path.join('.');
      out.push(issue('name-collision', entity.path, `${clash(entity, earlier)} (from ${where})`));
    } else seen.set(key, entity);
  }
  return out;
};

export const nameRules: Rule[] = [names];
