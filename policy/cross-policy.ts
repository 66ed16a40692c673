import { type Issue, type IssuePath, issue } from './issues';
import type { LoadedPolicy } from './load';
import type { Position } from './locate';
import { entityNames, type NamedEntity } from './plan/names';
import { clash } from './rules/names';

/**
 * What no single policy can check: policies validated together are deployed together, so a name
 * used twice, or a broker entity two of them would both provision, is an error. Policies are
 * taken to share one broker per target (one RabbitMQ, one Kafka cluster, one Service Bus
 * namespace); RabbitMQ names are compared per vhost.
 */

/** Finds a path in the policy's own YAML document. */
export type Locator = (path: IssuePath, at?: 'key' | 'value') => Position | undefined;

interface Owner {
  entity: NamedEntity;
  loaded: LoadedPolicy;
}

/** Two policies may both name a source they consume from, or a queue they forward dead letters to. */
function compatible(a: NamedEntity, b: NamedEntity): boolean {
  return a.shared !== undefined && a.shared === b.shared && !(a.owned && b.owned);
}

function where(loaded: LoadedPolicy): string {
  return `${loaded.file}:${loaded.line}`;
}

export function crossPolicyIssues(
  policies: readonly LoadedPolicy[],
  locators: ReadonlyMap<LoadedPolicy, Locator>,
): Issue[] {
  const out: Issue[] = [];
  const located = (loaded: LoadedPolicy, found: Issue): Issue => {
    const position = locators.get(loaded)?.(found.path);
    return {
      ...found,
      file: loaded.file,
      line: position?.line ?? loaded.line,
      column: position?.column ?? 1,
      policy: loaded.policy.name,
    };
  };

  const byName = new Map<string, LoadedPolicy>();
  const owners = new Map<string, Owner[]>();
  for (const loaded of policies) {
    const name = loaded.policy.name;
    const earlier = byName.get(name);
    if (earlier) {
      out.push(
        located(
          loaded,
          issue(
            'duplicate-policy-name',
            ['metadata', 'name'],
            `policy "${name}" is already defined at ${where(earlier)}`,
          ),
        ),
      );
      // Its entities are the first one's by construction: one finding says it all.
      continue;
    }
    byName.set(name, loaded);
    const reported = new Set<string>();
    for (const entity of entityNames(loaded.policy)) {
      const key = `${entity.target}\u0000${entity.scope}\u0000${entity.key}`;
      const list = owners.get(key) ?? [];
      const other = list.find((owner) => owner.loaded !== loaded && !compatible(entity, owner.entity));
      // One finding per field: a renamed queue would otherwise report each of its wait queues.
      const field = entity.path.join('.');
      if (other && !reported.has(field)) {
        reported.add(field);
        const both = entity.owned && other.entity.owned ? ': both policies would provision and own it' : '';
        out.push(
          located(
            loaded,
            issue(
              'name-collision',
              entity.path,
              `${clash(entity, other.entity)} of policy "${other.loaded.policy.name}" (${where(other.loaded)})${both}`,
            ),
          ),
        );
      }
      list.push({ entity, loaded });
      owners.set(key, list);
    }
  }
  return out;
}
