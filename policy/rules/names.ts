import { type Issue, issue } from '../issues';
import { entityNames, NAME_LIMITS } from '../plan/names';
import type { Rule } from './context';

const names: Rule = ({ policy }) => {
  const out: Issue[] = [];
  const seen = new Map<string, string>();
  for (const entity of entityNames(policy)) {
    const label = `${entity.target} ${entity.kind} "${entity.name}"`;
    switch (entity.target) {
      case 'rabbitmq': {
        const bytes = Buffer.byteLength(entity.name, 'utf8');
        if (bytes > NAME_LIMITS.rabbitmq.maxBytes)
          out.push(
            issue(
              'name-too-long',
              entity.path,
              `${label} is ${bytes} bytes; RabbitMQ allows ${NAME_LIMITS.rabbitmq.maxBytes}`,
            ),
          );
        // The Pulumi provider sends policy values that look like integers as numbers, and a
        // dead-letter routing key must be text.
        if (/^-?\d+$/.test(entity.name))
          out.push(
            issue(
              'name-invalid',
              entity.path,
              `${label}: an all-digit name would reach the broker as a number`,
            ),
          );
        break;
      }
      case 'kafka': {
        const limits = NAME_LIMITS.kafka;
        if (entity.name.length > limits.maxChars)
          out.push(
            issue(
              'name-too-long',
              entity.path,
              `${label} is ${entity.name.length} characters; Kafka allows ${limits.maxChars}`,
            ),
          );
        if (!limits.pattern.test(entity.name) || entity.name === '.' || entity.name === '..')
          out.push(
            issue(
              'name-invalid',
              entity.path,
              `${label}: Kafka allows only letters, digits, ".", "_" and "-"`,
            ),
          );
        break;
      }
      case 'serviceBus': {
        const limits = NAME_LIMITS.serviceBus;
        const max = entity.kind === 'subscription' ? limits.subscriptionMaxChars : limits.maxChars;
        if (entity.name.length > max)
          out.push(
            issue(
              'name-too-long',
              entity.path,
              `${label} is ${entity.name.length} characters; Service Bus allows ${max}`,
            ),
          );
        if (!limits.pattern.test(entity.name))
          out.push(
            issue(
              'name-invalid',
              entity.path,
              `${label}: Service Bus allows letters, digits, ".", "_", "-" and "/"`,
            ),
          );
        break;
      }
    }
    // Queues and topics share one namespace per target; exchanges and groups have their own.
    const key = `${entity.target}/${entity.kind === 'exchange' || entity.kind === 'group' ? entity.kind : 'entity'}/${entity.name}`;
    const earlier = seen.get(key);
    if (earlier) {
      out.push(issue('name-collision', entity.path, `${label} has the same name as the ${earlier}`));
    } else {
      seen.set(key, `${entity.kind} derived for ${entity.path.join('.')}`);
    }
  }
  return out;
};

export const nameRules: Rule[] = [names];
