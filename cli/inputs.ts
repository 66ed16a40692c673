import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

const POLICY_FILE = /\.ya?ml$/;

/** Files as given; a directory stands for the YAML files directly in it, sorted. */
export async function expandInputs(inputs: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const input of inputs) {
    const info = await stat(input).catch(() => undefined);
    if (info?.isDirectory()) {
      const names = (await readdir(input)).filter((name) => POLICY_FILE.test(name)).sort();
      files.push(...names.map((name) => join(input, name)));
    } else {
      // A missing file is reported by the loader, with its name, like any unreadable one.
      files.push(input);
    }
  }
  return files;
}
