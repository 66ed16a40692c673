import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { createConsumerProject, installedVersion } from './consumer-project';
import { packFreshClone } from './pack';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The tarball `npm pack` made from a fresh clone of HEAD. */
    tarball: string;
    /** A `pulumi new typescript`-shaped project with the tarball and every peer installed. */
    consumer: string;
  }
}

/**
 * Every peer package.json declares, at the version installed here (the lockfile's, or the floors
 * under scripts/peer-floors.sh), but the Confluent client: a native addon whose install step would
 * build librdkafka (scripts/confluent.sh builds it outside node_modules). Peers not installed here
 * are left out: @types/amqplib, which only amqplib before 1.2 needs (it ships its own types since).
 */
const NATIVE = ['@confluentinc/kafka-javascript'];
const PEERS = Object.keys(
  (
    JSON.parse(readFileSync(resolve(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>;
    }
  ).peerDependencies,
)
  .filter((name) => !NATIVE.includes(name))
  .flatMap((name) => {
    const version = installedVersion(name);
    return version ? [`${name}@${version}`] : [];
  });
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
