import type * as Yaml from 'yaml';

/**
 * The `yaml` library, loaded the first time a file needs it. Most policy files are read by
 * fast-yaml.ts alone, and loading the library's seventy modules is a noticeable part of a
 * `validate` run that never needs them.
 */
export function yamlLibrary(): typeof Yaml {
  return require('yaml') as typeof Yaml;
}
