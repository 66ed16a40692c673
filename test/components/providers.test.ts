import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { loadProvider, PROVIDER_PACKAGES } from '../../components/providers';

// The missing-provider error itself is exercised for real in test/package/one-provider.test.ts,
// in projects that lack the other providers.

it('names each provider with the range package.json declares as its peer dependency', () => {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    peerDependencies: Record<string, string>;
    peerDependenciesMeta: Record<string, { optional?: boolean }>;
  };
  for (const { npm, range } of Object.values(PROVIDER_PACKAGES)) {
    expect({ npm, range }).toEqual({ npm, range: pkg.peerDependencies[npm] });
    expect(pkg.peerDependenciesMeta[npm]?.optional).toBe(true);
  }
});

it('loads the provider module of a target, once', () => {
  const first = loadProvider('kafka');
  expect(typeof first.Topic).toBe('function');
  expect(loadProvider('kafka')).toBe(first);
  expect(typeof loadProvider('serviceBus').Queue).toBe('function');
  expect(typeof loadProvider('rabbitmq').Binding).toBe('function');
});
