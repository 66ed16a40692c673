import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The package's version, from its package.json: two levels up from the compiled dist/cli/, one
 * from the sources in cli/. Read once, when asked.
 */
export function packageVersion(): string {
  for (let dir = __dirname, depth = 0; depth < 4; depth++, dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'retry-topology' && manifest.version) return manifest.version;
    } catch {
      // Not here: one level up.
    }
  }
  return 'unknown';
}
