import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { createConsumerProject, lockedVersion } from './consumer-project';
import { packFreshClone } from './pack';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The tarball `npm pack` made from a fresh clone of HEAD. */
    tarball: string;
    /** A `pulumi new typescript`-shaped project with the tarball and every peer installed. */
    consumer: string;
  }
}

/** Every peer the README and docs snippets use, at the versions this repository tests. */
const PEERS = [
  '@pulumi/pulumi',
  '@pulumi/rabbitmq',
  '@pulumi/kafka',
  '@pulumi/azure-native',
  'amqplib',
  'kafkajs',
  '@azure/service-bus',
  '@opentelemetry/api',
].map((name) => `${name}@${lockedVersion(name)}`);
/**
 * Not peers, but what a team using the package has too: @azure/identity, which the Service Bus
 * snippets authenticate with (as Azure's own samples do), and yaml-language-server, the engine of
 * the editors' YAML extensions that read the schema.
 */
const EXTRAS = ['@azure/identity@^4', 'yaml-language-server@2.0.0'];

/** Vitest global setup for `package`: one tarball and one installed project for every test file. */
export default function setup(project: TestProject): () => void {
  const packed = packFreshClone(resolve(__dirname, '..', '..'));
  if (packed.uncommitted)
    console.warn(
      `package tests: packed commit ${packed.commit.slice(0, 12)}; uncommitted changes are not in it`,
    );
  const consumer = createConsumerProject(packed.tarball, [...PEERS, ...EXTRAS]);
  project.provide('tarball', packed.tarball);
  project.provide('consumer', consumer);
  return () => rmSync(consumer, { recursive: true, force: true });
}
