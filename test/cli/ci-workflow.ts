import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** The workflows in examples/ci, read as data: what the tests look at. */

export interface Step {
  if?: string;
  run?: string;
  'continue-on-error'?: boolean;
  'working-directory'?: string;
  uses?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
export interface Job {
  if?: string;
  permissions?: Record<string, string>;
  steps: Step[];
}
export interface Workflow {
  on: Record<string, unknown>;
  env?: Record<string, string>;
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
}

export const text = (name: string) => readFileSync(`examples/ci/${name}`, 'utf8');
export const load = (name: string) => parse(text(name)) as Workflow;
export const steps = (workflow: Workflow) => Object.values(workflow.jobs).flatMap((job) => job.steps);
