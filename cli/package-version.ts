import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The version in this package's own package.json. Found by walking up from this file, which sits
 * in cli/ in the repository and in dist/cli/ once built or installed.
 */
export function packageVersion(): string {
  let dir = __dirname;
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const { name, version } = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (name === 'retry-topology' && version) return version;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`retry-topology's package.json was not found above ${__dirname}`);
    dir = parent;
  }
}
