import type { DeadLetterReasonGroup } from './types';

/**
 * What a replay or a purge did. Their own module: DeadLetterError carries one when a run stops
 * part way, and the commands themselves throw DeadLetterError.
 */

export interface ReplayReport {
  dryRun: boolean;
  locations: string[];
  destination: string;
  /** Pending dead letters seen. */
  total: number;
  /** Those the filter selected (after --max). */
  selected: number;
  byReason: Record<DeadLetterReasonGroup, number>;
  /** The first few selected ids, for a dry run to show. */
  sample: string[];
  replayed: number;
  /** Selected, but gone by the time the replay reached them (another process took them). */
  notFound: number;
  /** Stopped by the signal before the end. */
  stopped: boolean;
  ratePerSecond: number;
  keepAttempts: boolean;
  elapsedMs: number;
}

export interface PurgeReport {
  dryRun: boolean;
  locations: string[];
  total: number;
  selected: number;
  byReason: Record<DeadLetterReasonGroup, number>;
  sample: string[];
  purged: number;
  notFound: number;
  archive?: { path: string; messages: number };
  stopped: boolean;
}
