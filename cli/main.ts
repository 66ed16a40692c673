#!/usr/bin/env node
import { processOutput, quietOnClosedPipes } from './output';
import { run } from './run';

quietOnClosedPipes();
run(process.argv.slice(2), processOutput).then((code) => {
  process.exitCode = code;
});
