import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import * as kafka from '@pulumi/kafka';
import * as pulumi from '@pulumi/pulumi';
import * as rabbitmq from '@pulumi/rabbitmq';
import { RetryTopology, type RetryTopologyArgs, TARGET_NAMES, type TargetName } from '../components';
import type { RetryPlan } from '../policy';
import { loadPlans } from './plans';
import { type InfraSettings, PROJECT, readSettings } from './settings';

/**
 * The Pulumi program: every policy named in stack config becomes one RetryTopology, on the
 * targets whose broker this stack configures. A target the stack does not configure (no Azure
 * on dev and ci) is skipped with a log line, never silently.
 */

export interface ProgramDeps {
  settings?: InfraSettings;
  /** The project root that policy paths are relative to. */
  root?: string;
  log?: { info(message: string): void; warn(message: string): void };
}

/** Why a target is skipped on this stack, or undefined when it is configured. */
export function skipReason(target: TargetName, settings: InfraSettings): string | undefined {
  switch (target) {
    case 'rabbitmq':
      return settings.rabbitmq ? undefined : 'no rabbitmq:endpoint in stack config';
    case 'kafka':
      return settings.kafka ? undefined : 'no kafka:bootstrapServers in stack config';
    case 'serviceBus':
      return settings.serviceBus ? undefined : `no ${PROJECT}:serviceBus in stack config`;
  }
}

function providers(settings: InfraSettings) {
  const { rabbitmq: rabbit, kafka: broker } = settings;
  return {
    rabbitmq: rabbit && new rabbitmq.Provider('rabbitmq', rabbit),
    // The provider defaults tlsEnabled to true: a plaintext local broker needs tlsEnabled: false.
    kafka: broker && new kafka.Provider('kafka', broker),
  };
}

function topologyArgs(
  plan: RetryPlan,
  targets: TargetName[],
  settings: InfraSettings,
  provider: ReturnType<typeof providers>,
): RetryTopologyArgs {
  const consumer = settings.consumers[plan.policy] ?? {};
  const user = consumer.rabbitmqUser;
  const password = user === undefined ? undefined : settings.consumerPasswords[user];
  return {
    plan,
    targets,
    protectMessages: settings.protectMessages,
    retainRetryLevels: settings.retainRetryLevels,
    rabbitmq: {
      ...(provider.rabbitmq ? { provider: provider.rabbitmq } : {}),
      ...(user === undefined ? {} : { consumerUser: { name: user, ...(password ? { password } : {}) } }),
    },
    kafka: {
      ...(provider.kafka ? { provider: provider.kafka } : {}),
      ...(consumer.kafkaPrincipal ? { consumerPrincipal: consumer.kafkaPrincipal } : {}),
    },
    ...(settings.serviceBus
      ? {
          serviceBus: {
            ...settings.serviceBus,
            ...(consumer.serviceBusRule ? { consumerRuleName: consumer.serviceBusRule } : {}),
          },
        }
      : {}),
  };
}

/**
 * Where Pulumi.yaml is. The SDK knows it only when the language host passes --root-directory
 * (the host built by scripts/pulumi-engine.sh does not, and mocks report a placeholder), and the
 * program runs in infra/, so look upwards from the working directory.
 */
export function projectRoot(start = process.cwd()): string {
  const known = pulumi.runtime.getRootDirectory();
  if (isAbsolute(known)) return known;
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'Pulumi.yaml'))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

export async function program(deps: ProgramDeps = {}): Promise<Record<string, unknown>> {
  const settings = deps.settings ?? readSettings();
  const log = deps.log ?? {
    info: (message: string) => pulumi.log.info(message),
    warn: (message: string) => pulumi.log.warn(message),
  };
  const root = deps.root ?? projectRoot();
  const { plans, warnings } = await loadPlans(settings.policies, root);
  if (warnings) log.warn(warnings);

  const provider = providers(settings);
  const topologies: Record<string, unknown> = {};
  for (const plan of plans) {
    const planned = TARGET_NAMES.filter((target) => plan.targets[target] !== undefined);
    const targets = planned.filter((target) => {
      const reason = skipReason(target, settings);
      if (reason) log.info(`${plan.policy}: ${target} skipped: ${reason}`);
      return reason === undefined;
    });
    if (targets.length === 0) continue;
    const topology = new RetryTopology(plan.policy, topologyArgs(plan, targets, settings, provider));
    topologies[plan.policy] = {
      targets: topology.targets,
      planJson: topology.planJson,
      ...(topology.rabbitmq
        ? {
            rabbitmq: {
              mainQueue: topology.rabbitmq.mainQueue,
              deadLetterQueue: topology.rabbitmq.deadLetterQueue,
              waitQueues: topology.rabbitmq.waitQueues,
            },
          }
        : {}),
      ...(topology.kafka
        ? {
            kafka: {
              retryTopics: topology.kafka.retryTopics,
              deadLetterTopic: topology.kafka.deadLetterTopic,
            },
          }
        : {}),
      ...(topology.serviceBus ? { serviceBus: { entityPath: topology.serviceBus.entityPath } } : {}),
    };
  }
  return { topologies };
}
