import type * as servicebus from '@pulumi/azure-native/servicebus';
import type * as kafka from '@pulumi/kafka';
import type * as rabbitmq from '@pulumi/rabbitmq';
import { TopologyError } from './errors';
import type { TargetName } from './plan';

/**
 * The Pulumi provider SDK each target needs, loaded on first use. They are optional peer
 * dependencies: a RabbitMQ-only project installs @pulumi/rabbitmq and never the others
 * (@pulumi/azure-native alone is over 100 MB), so nothing here is imported at the top level.
 *
 * Internal: its types name every provider SDK, so nothing a provider-free entry point exports
 * may refer to this file.
 */

interface ProviderModules {
  rabbitmq: typeof rabbitmq;
  kafka: typeof kafka;
  serviceBus: typeof servicebus;
}

/** The module each target loads, and the npm package (with the range this package supports) to install. */
export const PROVIDER_PACKAGES: Readonly<Record<TargetName, { module: string; npm: string; range: string }>> =
  {
    rabbitmq: { module: '@pulumi/rabbitmq', npm: '@pulumi/rabbitmq', range: '^3.2.0' },
    kafka: { module: '@pulumi/kafka', npm: '@pulumi/kafka', range: '^3.8.0' },
    serviceBus: {
      module: '@pulumi/azure-native/servicebus',
      npm: '@pulumi/azure-native',
      range: '^2.21.1 || ^3.0.0',
    },
  };

const loaded: Partial<ProviderModules> = {};

/** True when `error` says that `request` itself is missing, not something it requires in turn. */
function isMissing(error: unknown, request: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === 'MODULE_NOT_FOUND' &&
    typeof message === 'string' &&
    message.startsWith(`Cannot find module '${request}'`)
  );
}

/**
 * The provider SDK of `target`. A missing package is one TopologyError (`provider-not-installed`)
 * that names the package to install; any other failure while loading it is passed on as it is.
 * `context` says who asked, e.g. `policy "billing.order-placed" has a kafka target`.
 */
export function loadProvider<T extends TargetName>(target: T, context?: string): ProviderModules[T] {
  const cached = loaded[target];
  if (cached) return cached as ProviderModules[T];
  const { module, npm, range } = PROVIDER_PACKAGES[target];
  let found: ProviderModules[T];
  try {
    found = require(module) as ProviderModules[T];
  } catch (error) {
    if (!isMissing(error, module)) throw error;
    throw new TopologyError(
      'provider-not-installed',
      `${context ? `${context}, which` : `retry-topology's ${target} components`} need${context ? 's' : ''} the npm package ${npm}, which is not installed: run \`npm install ${npm}@"${range}"\` in the Pulumi project`,
      { cause: error },
    );
  }
  loaded[target] = found;
  return found;
}
