import * as pulumi from '@pulumi/pulumi';

/**
 * Stack config → typed settings, every default applied here once. Provider keys live in each
 * provider's own namespace (`rabbitmq:endpoint`, `kafka:bootstrapServers`), the same keys the
 * provider documents; credentials are set with `pulumi config set --secret` and stay Outputs.
 */

export const PROJECT = 'retry-topology';

export interface ConsumerSettings {
  /** RabbitMQ user for this policy's consumer; created when consumerPasswords has its password. */
  rabbitmqUser?: string;
  /** Kafka principal for this policy's consumer, e.g. "User:billing". */
  kafkaPrincipal?: string;
  /** Service Bus SAS rule name for this policy's consumer. */
  serviceBusRule?: string;
}

export interface InfraSettings {
  /** Policy files, relative to the project root. */
  policies: string[];
  protectMessages: boolean;
  retainRetryLevels: boolean;
  rabbitmq?: { endpoint: string; username: string; password: pulumi.Output<string>; insecure?: boolean };
  kafka?: {
    bootstrapServers: string[];
    tlsEnabled?: boolean;
    saslMechanism?: string;
    saslUsername?: string;
    saslPassword?: pulumi.Output<string>;
  };
  serviceBus?: { resourceGroupName: string; namespaceName: string };
  /** By policy name. */
  consumers: Record<string, ConsumerSettings>;
  /** By RabbitMQ user name. Which users have one is plain; each password is a secret. */
  consumerPasswords: Record<string, pulumi.Output<string>>;
}

/** A config mistake, reported without a stack trace. */
function configError(message: string): pulumi.RunError {
  return new pulumi.RunError(`stack config: ${message}`);
}

function stringList(value: unknown, key: string): string[] {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((item) => typeof item === 'string' && item !== '')
  ) {
    throw configError(`${key} must be a non-empty list of strings`);
  }
  return value;
}

function readRabbitMq(): InfraSettings['rabbitmq'] {
  const config = new pulumi.Config('rabbitmq');
  const endpoint = config.get('endpoint');
  if (endpoint === undefined) return undefined;
  const username = config.get('username');
  const password = config.getSecret('password');
  if (!username || !password) {
    throw configError(
      'rabbitmq:endpoint is set, so rabbitmq:username and rabbitmq:password are needed too ' +
        '(pulumi config set rabbitmq:username <user>; pulumi config set --secret rabbitmq:password <password>)',
    );
  }
  const insecure = config.getBoolean('insecure');
  return { endpoint, username, password, ...(insecure === undefined ? {} : { insecure }) };
}

function readKafka(): InfraSettings['kafka'] {
  const config = new pulumi.Config('kafka');
  const servers = config.getObject<unknown>('bootstrapServers');
  if (servers === undefined) return undefined;
  const tlsEnabled = config.getBoolean('tlsEnabled');
  const saslMechanism = config.get('saslMechanism');
  const saslUsername = config.get('saslUsername');
  const saslPassword = config.getSecret('saslPassword');
  return {
    bootstrapServers: stringList(servers, 'kafka:bootstrapServers'),
    ...(tlsEnabled === undefined ? {} : { tlsEnabled }),
    ...(saslMechanism === undefined ? {} : { saslMechanism }),
    ...(saslUsername === undefined ? {} : { saslUsername }),
    ...(saslPassword === undefined ? {} : { saslPassword }),
  };
}

function readServiceBus(config: pulumi.Config): InfraSettings['serviceBus'] {
  const value = config.getObject<Record<string, unknown>>('serviceBus');
  if (value === undefined) return undefined;
  const { resourceGroupName, namespaceName } = value;
  if (typeof resourceGroupName !== 'string' || typeof namespaceName !== 'string') {
    throw configError(`${PROJECT}:serviceBus needs resourceGroupName and namespaceName (strings)`);
  }
  return { resourceGroupName, namespaceName };
}

export function readSettings(): InfraSettings {
  const config = new pulumi.Config(PROJECT);
  const policies = config.getObject<unknown>('policies');
  if (policies === undefined) {
    throw configError(`${PROJECT}:policies is not set: list the policy files, e.g. [policies/billing.yaml]`);
  }
  const rabbitmq = readRabbitMq();
  const kafka = readKafka();
  const serviceBus = readServiceBus(config);
  // Read as a plain object to learn which users have a password (that decides whether a User
  // resource exists); each value is wrapped as a secret at once.
  const passwords = config.getObject<Record<string, unknown>>('consumerPasswords') ?? {};
  const consumerPasswords = Object.fromEntries(
    Object.entries(passwords).map(([user, password]) => [user, pulumi.secret(String(password))]),
  );
  return {
    policies: stringList(policies, `${PROJECT}:policies`),
    protectMessages: config.getBoolean('protectMessages') ?? true,
    retainRetryLevels: config.getBoolean('retainRetryLevels') ?? true,
    ...(rabbitmq ? { rabbitmq } : {}),
    ...(kafka ? { kafka } : {}),
    ...(serviceBus ? { serviceBus } : {}),
    consumers: config.getObject<Record<string, ConsumerSettings>>('consumers') ?? {},
    consumerPasswords,
  };
}
