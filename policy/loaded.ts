import type { Policy } from './types';

/**
 * A policy and where it was read from. Its own module: load.ts produces it and cross-policy.ts,
 * which load.ts calls, reads it.
 */
export interface LoadedPolicy {
  policy: Policy;
  file: string;
  /** Line of the document's start in its file. */
  line: number;
}
