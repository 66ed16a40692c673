import type { RetryPlan, ServiceBusPlan } from '../../policy';
import type { TargetName } from '../../policy/plan/targets';
import { DeadLetterError, type DeadLetters, deadLetterLocations } from '../../runtime/dead-letters';
import { UsageError } from '../args';
import { type ConnectionSettings, usageError } from './args';

/** The commands for one target, on a live connection, and how to close it. */
export interface Opened {
  commands: DeadLetters;
  close(): Promise<void>;
}

/** `warn` prints what went wrong without failing the command (Kafka: a group it could not delete). */
export type Connector = (
  plan: RetryPlan,
  settings: ConnectionSettings,
  warn?: (message: string) => void,
) => Promise<Opened>;
export type Connectors = Record<TargetName, Connector>;

/** Broker clients are optional peers: load the one a command needs, or say how to get it. */
function load<T>(name: string): T {
  try {
    return require(name) as T;
  } catch (cause) {
    throw new DeadLetterError(
      'invalid-option',
      `this target needs the ${name} package: npm install ${name}`,
      { cause },
    );
  }
}

function unreachable(what: string, cause: unknown): DeadLetterError {
  return new DeadLetterError(
    'broker-unreachable',
    `cannot connect to ${what}: ${(cause as Error).message ?? String(cause)}; nothing was changed`,
    {
      cause,
    },
  );
}

/**
 * The URL with the plan's vhost: a URL without one gets it; a URL naming another is refused, since
 * the plan's queues live in its own.
 */
export function withVhost(url: string, vhost: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new UsageError('the RabbitMQ URL is not a URL (amqp://user:password@host:5672)', {
      code: 'invalid-option',
      cause,
    });
  }
  const given = parsed.pathname.replace(/^\//, '');
  if (given === '') {
    parsed.pathname = `/${encodeURIComponent(vhost)}`;
    return parsed.toString();
  }
  if (decodeURIComponent(given) !== vhost)
    throw usageError(`the URL's vhost "${decodeURIComponent(given)}" is not the plan's "${vhost}"`);
  return url;
}

const rabbitmq: Connector = async (plan, settings) => {
  if (!settings.url) throw usageError('RabbitMQ needs --url or RABBITMQ_URL');
  const amqplib = load<typeof import('amqplib')>('amqplib');
  const { rabbitMqDeadLetters } = await import('../../runtime/rabbitmq/dead-letters');
  const url = withVhost(settings.url, plan.targets.rabbitmq?.vhost ?? '/');
  let connection: import('amqplib').ChannelModel;
  try {
    connection = await amqplib.connect(url, { timeout: 10_000 });
  } catch (cause) {
    throw unreachable(`RabbitMQ at ${new URL(url).host}`, cause);
  }
  // A dropped connection fails the calls in flight; unheard, its 'error' would end the process.
  connection.on('error', () => {});
  return {
    commands: rabbitMqDeadLetters(plan, { connection }),
    close: async () => {
      await connection.close().catch(() => undefined);
    },
  };
};

const kafka: Connector = async (plan, settings, warn) => {
  if (!settings.brokers?.length) throw usageError('Kafka needs --brokers or KAFKA_BROKERS');
  const kafkajs = load<typeof import('kafkajs')>('kafkajs');
  const { kafkaDeadLetters } = await import('../../runtime/kafka/dead-letters');
  const client = new kafkajs.Kafka({
    clientId: 'retry-topology-dead-letters',
    brokers: settings.brokers,
    logLevel: kafkajs.logLevel.NOTHING,
    connectionTimeout: 5_000,
    retry: { retries: 3 },
    ...(settings.ssl ? { ssl: true } : {}),
    ...(settings.sasl ? { sasl: settings.sasl as import('kafkajs').SASLOptions } : {}),
  });
  const admin = client.admin();
  const producer = client.producer({ allowAutoTopicCreation: false, idempotent: false });
  try {
    await admin.connect();
    await producer.connect();
  } catch (cause) {
    await Promise.allSettled([admin.disconnect(), producer.disconnect()]);
    throw unreachable(`Kafka at ${settings.brokers.join(',')}`, cause);
  }
  return {
    commands: kafkaDeadLetters(plan, {
      admin,
      producer,
      consumer: (groupId) =>
        client.consumer({ groupId, maxWaitTimeInMs: 200, sessionTimeout: 10_000, heartbeatInterval: 1_000 }),
      ...(warn ? { onWarning: warn } : {}),
    }),
    close: async () => {
      await Promise.allSettled([producer.disconnect(), admin.disconnect()]);
    },
  };
};

const serviceBus: Connector = async (plan, settings) => {
  if (!settings.connectionString)
    throw usageError('Service Bus needs --connection-string or SERVICEBUS_CONNECTION_STRING');
  const sdk = load<typeof import('@azure/service-bus')>('@azure/service-bus');
  const { serviceBusDeadLetters } = await import('../../runtime/servicebus/dead-letters');
  const target = plan.targets.serviceBus as ServiceBusPlan;
  const client = new sdk.ServiceBusClient(settings.connectionString);
  const { entity } = target;
  const receivers = deadLetterLocations(plan, 'serviceBus').map((location) => {
    // Forwarded dead letters are ordinary messages of the queue they were forwarded to.
    if (location.kind === 'queue') return client.createReceiver(location.name, { receiveMode: 'peekLock' });
    const options = { receiveMode: 'peekLock', subQueueType: 'deadLetter' } as const;
    const base = location.name.replace(/\/\$DeadLetterQueue$/i, '');
    return entity.kind === 'subscription' && base.toLowerCase() !== target.scheduleTo.toLowerCase()
      ? client.createReceiver(entity.topic, entity.subscription, options)
      : client.createReceiver(base, options);
  });
  return {
    commands: serviceBusDeadLetters(plan, { receivers, sender: client.createSender(target.scheduleTo) }),
    close: async () => {
      await client.close().catch(() => undefined);
    },
  };
};

export const CONNECTORS: Connectors = { rabbitmq, kafka, serviceBus };
