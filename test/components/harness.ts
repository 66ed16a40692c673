import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as pulumi from '@pulumi/pulumi';
import { parse } from 'yaml';
import { checkDocument, derivePlan, loadPolicyText, type RetryPlan } from '../../policy';

/**
 * Records what a Pulumi program registers under `setMocks`: the mock's `newResource` calls (what
 * the tests of the brief require), plus, from the mock monitor's own registerResource request,
 * the options the mock API does not show (protect, retainOnDelete, dependsOn, provider...).
 */

export interface Registration {
  type: string;
  name: string;
  urn: string;
  parent: string;
  custom: boolean;
  inputs: Record<string, unknown>;
  protect: boolean | undefined;
  retainOnDelete: boolean | undefined;
  deleteBeforeReplace: boolean;
  ignoreChanges: string[];
  dependencies: string[];
  provider: string;
  aliases: number;
  /** The replacementTrigger option, as the monitor received it (undefined when not set). */
  replacementTrigger: unknown;
}

export interface Recording {
  /** Every call of the mock's newResource, in order. */
  mockCalls: pulumi.runtime.MockResourceArgs[];
  registrations: Registration[];
  /** Component outputs as registered by registerOutputs, by URN. */
  outputs: Map<string, Record<string, unknown>>;
}

interface MonitorRequest {
  getType(): string;
  getName(): string;
  getParent(): string;
  getCustom(): boolean;
  getObject(): unknown;
  getProtect(): boolean | undefined;
  getRetainondelete(): boolean | undefined;
  getDeletebeforereplace(): boolean;
  getIgnorechangesList(): string[];
  getDependenciesList(): string[];
  getProvider(): string;
  getAliasesList(): unknown[];
  getReplacementTrigger(): { toJavaScript(): unknown } | undefined;
  getUrn(): string;
  getOutputs(): unknown;
}
interface MockMonitorShape {
  newUrn(parent: string, type: string, name: string): string;
  registerResource(req: MonitorRequest, callback: unknown): Promise<void>;
  registerResourceOutputs(req: MonitorRequest, callback: unknown): void;
}

/** Resolved state the mock returns, so `resource.name` outputs carry the entity's real name. */
function mockState(args: pulumi.runtime.MockResourceArgs): Record<string, unknown> {
  if (!args.custom) return {};
  const inputs = args.inputs as Record<string, unknown>;
  const name =
    inputs.name ?? inputs.authorizationRuleName ?? inputs.subscriptionName ?? inputs.queueName ?? args.name;
  return { ...inputs, name };
}

/** Runs `build` under fresh mocks and waits until every registration has reached the mock. */
export async function record(build: () => unknown): Promise<Recording> {
  const recording: Recording = { mockCalls: [], registrations: [], outputs: new Map() };
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        recording.mockCalls.push(args);
        return { id: args.custom ? `${args.name}-id` : undefined, state: mockState(args) };
      },
      call: (args) => args.inputs,
    },
    'retry-topology',
    'test',
  );
  const monitor = pulumi.runtime.getMonitor() as unknown as MockMonitorShape;
  const registerResource = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, callback) => {
    recording.registrations.push({
      type: req.getType(),
      name: req.getName(),
      urn: monitor.newUrn(req.getParent(), req.getType(), req.getName()),
      parent: req.getParent(),
      custom: req.getCustom(),
      inputs: pulumi.runtime.deserializeProperties(req.getObject() as never),
      protect: req.getProtect(),
      retainOnDelete: req.getRetainondelete(),
      deleteBeforeReplace: req.getDeletebeforereplace(),
      ignoreChanges: req.getIgnorechangesList(),
      dependencies: req.getDependenciesList(),
      provider: req.getProvider(),
      aliases: req.getAliasesList().length,
      replacementTrigger: req.getReplacementTrigger()?.toJavaScript(),
    });
    return registerResource(req, callback);
  };
  const registerOutputs = monitor.registerResourceOutputs.bind(monitor);
  monitor.registerResourceOutputs = (req, callback) => {
    recording.outputs.set(req.getUrn(), pulumi.runtime.deserializeProperties(req.getOutputs() as never));
    return registerOutputs(req, callback);
  };
  await build();
  await settle();
  return recording;
}

/** Waits for the SDK's queue of outstanding RPCs to drain (internal, hence the check). */
async function settle(): Promise<void> {
  const waitForRPCs = (pulumi.runtime as unknown as { waitForRPCs?: () => Promise<void> }).waitForRPCs;
  if (typeof waitForRPCs !== 'function')
    throw new Error('@pulumi/pulumi no longer exports runtime.waitForRPCs');
  await waitForRPCs();
}

/** An output's value (mocks resolve everything; no unknowns outside preview). */
export function outputValue<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply((value) => resolve(value)));
}

export const POLICY_DIR = join(__dirname, '..', '..', 'policies');

/** Every policy of every file in policies/, as a plan; new example files join automatically. */
export function examplePlans(): Array<{ file: string; plan: RetryPlan }> {
  const files = readdirSync(POLICY_DIR).filter((file) => /\.ya?ml$/.test(file));
  return files.flatMap((file) => {
    const loaded = loadPolicyText(readFileSync(join(POLICY_DIR, file), 'utf8'), file);
    return loaded.policies.map(({ policy }) => ({ file, plan: derivePlan(policy) }));
  });
}

/** billing.yaml as a plain object, to derive variants with one change. */
export function billingDocument(): Record<string, unknown> {
  return parse(readFileSync(join(POLICY_DIR, 'billing.yaml'), 'utf8')) as Record<string, unknown>;
}

/** A deep copy of a document with `value` set at `path`. */
export function withValue(
  document: unknown,
  path: ReadonlyArray<string>,
  value: unknown,
): Record<string, unknown> {
  const copy = structuredClone(document) as Record<string, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[path[path.length - 1] as string] = value;
  return copy;
}

export function planOf(document: unknown): RetryPlan {
  const { policy, issues } = checkDocument(document);
  if (!policy) throw new Error(`invalid test policy: ${JSON.stringify(issues)}`);
  return derivePlan(policy);
}

/** Registrations of custom resources of one type, by logical name. */
export function byName(recording: Recording, type: string): Map<string, Registration> {
  return new Map(
    recording.registrations.filter((each) => each.type === type).map((each) => [each.name, each]),
  );
}

export const TYPES = {
  exchange: 'rabbitmq:index/exchange:Exchange',
  queue: 'rabbitmq:index/queue:Queue',
  policy: 'rabbitmq:index/policy:Policy',
  binding: 'rabbitmq:index/binding:Binding',
  user: 'rabbitmq:index/user:User',
  permissions: 'rabbitmq:index/permissions:Permissions',
  topic: 'kafka:index/topic:Topic',
  acl: 'kafka:index/acl:Acl',
  sbQueue: 'azure-native:servicebus:Queue',
  sbSubscription: 'azure-native:servicebus:Subscription',
  sbQueueRule: 'azure-native:servicebus:QueueAuthorizationRule',
} as const;

/** One change at several paths, applied in order. */
export function withValues(document: unknown, changes: ReadonlyArray<[ReadonlyArray<string>, unknown]>) {
  return changes.reduce<Record<string, unknown>>(
    (doc, [path, value]) => withValue(doc, path, value),
    document as Record<string, unknown>,
  );
}

const RABBIT = ['spec', 'targets', 'rabbitmq'];
const KAFKA = ['spec', 'targets', 'kafka'];
const SERVICE_BUS = ['spec', 'targets', 'serviceBus'];

/** billing.yaml in every RabbitMQ mode and every Service Bus entity kind, with the owner flags flipped. */
export function billingVariants(): Array<{ file: string; plan: RetryPlan }> {
  const base = billingDocument();
  const variants: Record<string, ReadonlyArray<[ReadonlyArray<string>, unknown]>> = {
    'quorum-delayed-retry on 4.3': [
      [[...RABBIT, 'mode'], 'quorum-delayed-retry'],
      [[...RABBIT, 'brokerVersion'], '4.3.0'],
    ],
    'delivery-time on 4.4': [
      [[...RABBIT, 'mode'], 'delivery-time'],
      [[...RABBIT, 'brokerVersion'], '4.4.0'],
    ],
    'producer-owned exchange and topic, unbounded wait queues, named dead letter': [
      [[...RABBIT, 'declareExchange'], false],
      [[...RABBIT, 'waitQueueMaxLength'], 'unbounded'],
      [[...KAFKA, 'declareTopic'], false],
      [['spec', 'deadLetter'], { name: 'billing.failed' }],
    ],
    'Service Bus queue with duplicate detection and forwarding': [
      [
        SERVICE_BUS,
        { entity: 'queue', queue: 'billing-orders', duplicateDetection: '10m', forwardDeadLettersTo: 'ops' },
      ],
    ],
    'Service Bus queue, retries on itself': [[SERVICE_BUS, { entity: 'queue', queue: 'billing-orders' }]],
  };
  return Object.entries(variants).map(([name, changes]) => ({
    file: `billing.yaml (${name})`,
    plan: planOf(withValues(base, changes)),
  }));
}

/** JSON with object keys sorted at every depth: equal values give equal text. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_, inner) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b)))
      : inner,
  );
}

/** A sort comparator on canonical JSON, for comparing lists without caring about order. */
export function byCanonical(a: unknown, b: unknown): number {
  return canonical(a).localeCompare(canonical(b));
}
