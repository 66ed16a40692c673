import { CONNECTORS, type Connectors } from './connect';

/**
 * What a dead-letter command takes from the process it runs in; tests pass their own. Its own
 * module: the command and the verbs it runs both read it.
 */
export interface DeadLetterEnvironment {
  env: NodeJS.ProcessEnv;
  connectors: Connectors;
  now(): number;
  /** A progress bar is drawn only on a terminal. */
  terminal?: { write(text: string): void };
  /** Ctrl-C and SIGTERM stop a replay or purge after what is in flight (a second one exits at once). */
  handleSignals: boolean;
}

export function processEnvironment(): DeadLetterEnvironment {
  return {
    env: process.env,
    connectors: CONNECTORS,
    now: () => Date.now(),
    ...(process.stderr.isTTY
      ? { terminal: { write: (text: string) => void process.stderr.write(text) } }
      : {}),
    handleSignals: true,
  };
}
