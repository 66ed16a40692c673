#!/usr/bin/env node
import { processOutput } from './output';
import { run } from './run';

run(process.argv.slice(2), processOutput).then((code) => {
  process.exitCode = code;
});
