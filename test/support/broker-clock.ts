/**
 * The earliest a wait the broker alone times may end, by this process's clock. That is
 * quorum-delayed-retry mode (RabbitMQ 4.3+), where the broker holds the rejected message and the
 * runtime has no due time to check it against; in ttl-queues mode the runtime holds a copy that
 * comes early (runtime/rabbitmq/due.ts), so those waits are never short.
 *
 * RabbitMQ's timers run on the Erlang VM's monotonic clock, which the VM slews against the OS
 * clock to correct it (by up to 1 %), and fire to the millisecond: a CI run saw a 1 s + 2 s + 4 s
 * TTL chain end 20 ms short of 7 s. A message held at a wrong, shorter level is at least half its
 * wait early (each level doubles the one before), far beyond this.
 */
export const earliestEnd = (plannedMs: number): number => plannedMs - (50 + plannedMs / 100);
