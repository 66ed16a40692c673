import { type Issue, type IssuePath, issue } from './issues';
import type { LoadedPolicy } from './loaded';
import { entityNames, kafkaRetryPrefix, type NamedEntity, retryPrefixesOf } from './plan/names';
import type { Position } from './position';
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
  // Per name: the first user of each kind of sharing, and the first owner. That is all a later
  // user is compared with, so a source exchange a thousand policies share costs one lookup each.
  const owners = new Map<string, { firstBy: Map<string, Owner>; owned?: Owner }>();
  const conflict = (entity: NamedEntity, loaded: LoadedPolicy, key: string): Owner | undefined => {
    const seen = owners.get(key);
    if (!seen) return undefined;
    // Another kind of use of the name (or any use, for a name that cannot be shared) clashes.
    for (const [shared, owner] of seen.firstBy)
      if (owner.loaded !== loaded && (entity.shared === undefined || shared !== entity.shared)) return owner;
    // The same kind of sharing clashes only when both would provision it.
    if (entity.owned && seen.owned && seen.owned.loaded !== loaded) return seen.owned;
    return undefined;
  };
  const remember = (entity: NamedEntity, loaded: LoadedPolicy, key: string) => {
    const seen = owners.get(key) ?? { firstBy: new Map<string, Owner>() };
    const shared = entity.shared ?? '';
    if (!seen.firstBy.has(shared)) seen.firstBy.set(shared, { entity, loaded });
    if (entity.owned && !seen.owned) seen.owned = { entity, loaded };
    owners.set(key, seen);
  };
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
      const other = conflict(entity, loaded, key);
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
      remember(entity, loaded, key);
    }
  }
  out.push(...retryPrefixIssues([...byName.values()]).map(([loaded, found]) => located(loaded, found)));
  return out;
}

/**
 * A policy's consumer may read and write every Kafka topic under its retry prefix
 * (`<policy>.retry.`, one prefixed ACL for all levels): any other topic there, of this policy or
 * another, would be open to that consumer, so it is refused. Each topic is looked up once per
 * `.retry.` in its name, so a thousand policies cost a thousand lookups, not a million.
 */
function retryPrefixIssues(policies: readonly LoadedPolicy[]): Array<[LoadedPolicy, Issue]> {
  const prefixes = new Map<string, LoadedPolicy>();
  for (const loaded of policies) {
    if (loaded.policy.targets.kafka && loaded.policy.maxAttempts > 1)
      prefixes.set(kafkaRetryPrefix(loaded.policy.name), loaded);
  }
  const out: Array<[LoadedPolicy, Issue]> = [];
  for (const loaded of policies) {
    const reported = new Set<string>();
    for (const entity of entityNames(loaded.policy)) {
      if (entity.target !== 'kafka' || entity.kind !== 'topic') continue;
      for (const prefix of retryPrefixesOf(entity.name)) {
        const owner = prefixes.get(prefix);
        // A policy's own retry topics are what its prefix is for.
        const ownRetryTopic =
          owner === loaded &&
          entity.path.join('.') === 'metadata.name' &&
          /^[0-9]+$/.test(entity.name.slice(prefix.length));
        if (!owner || ownRetryTopic) continue;
        const field = entity.path.join('.');
        if (reported.has(field)) continue;
        reported.add(field);
        const whose = owner === loaded ? 'its own' : `policy "${owner.policy.name}"'s (${where(owner)})`;
        out.push([
          loaded,
          issue(
            'name-collision',
            entity.path,
            `Kafka topic "${entity.name}" starts with "${prefix}", ${whose} retry-topic prefix: the prefixed ACLs of that policy's consumer would cover it`,
          ),
        ]);
      }
    }
  }
  return out;
}
