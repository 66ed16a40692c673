import type { Reporter, TestModule } from 'vitest/node';

/**
 * Lists every skipped test by name at the end of a run, so a test that applies only to some
 * broker versions is never skipped silently: its name says which versions it is for.
 */
export default class SkippedReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests('skipped')) {
        lines.push(
          `  ↓ [${module.project.name}] ${module.moduleId.replace(`${process.cwd()}/`, '')} > ${test.fullName}`,
        );
      }
    }
    if (lines.length === 0) return;
    process.stdout.write(`\nSkipped (${lines.length}), each saying why in its name:\n${lines.join('\n')}\n`);
  }
}
