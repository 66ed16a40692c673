import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import type { ServiceBusPlan } from '../../policy/plan/types';
import type { Clock } from '../clock';
import type { SettlingReceiver } from './contract';
import { ServiceBusRetryError } from './errors';

/**
 * Keeps immediate retries inside the message lock. Validation already refuses policies whose
 * in-memory waits pass half of the lock with renewal; this is the check at run time, where the
 * handler's real duration is known.
 *
 * Before each in-memory wait it asks: does the lock still cover the wait, one more handler call
 * as long as the last one, and the settle margin (scheduling the copy and completing the
 * original)? If not, it renews the lock itself, but only while the renewal the policy declares
 * (`lockRenewal`, the receiver's maxAutoLockRenewalDurationInMs) lasts, so it works whether or
 * not the SDK's auto-renewal is on and never holds a message longer than the policy says. When
 * the lock still would not cover it (renewal off or spent, renewal failed, a short lock) the
 * answer is no: the immediate retries stop and the delayed level runs while the lock holds.
 */
export interface LockGuard {
  covers(next: { delayMs: number; lastCallMs: number }): Promise<boolean>;
}

export function lockGuard(input: {
  message: ServiceBusReceivedMessage;
  receiver: SettlingReceiver;
  rules: Pick<ServiceBusPlan, 'lockDurationMs' | 'lockRenewalMs'>;
  clock: Clock;
  receivedAt: number;
  settleMarginMs: number;
  messageId: string | undefined;
  onError: (error: ServiceBusRetryError) => void;
}): LockGuard {
  const { message, receiver, rules, clock, receivedAt } = input;
  const renews = rules.lockRenewalMs > 0;
  // The same budget the policy rule checks: the lock, or the renewal when it is longer.
  const heldUntil =
    receivedAt + (renews ? Math.max(rules.lockRenewalMs, rules.lockDurationMs) : rules.lockDurationMs);
  // Without lockedUntilUtc (never in peek-lock) assume a lock taken when we got the message.
  let lockedUntil = message.lockedUntilUtc?.getTime() ?? receivedAt + rules.lockDurationMs;

  return {
    async covers({ delayMs, lastCallMs }) {
      const needed = delayMs + lastCallMs + input.settleMarginMs;
      // The SDK's own renewal moves lockedUntilUtc on the message; take whichever is later.
      lockedUntil = Math.max(lockedUntil, message.lockedUntilUtc?.getTime() ?? 0);
      if (lockedUntil - clock.now() >= needed) return true;
      if (!renews || clock.now() + needed > heldUntil) return false;
      try {
        const renewed = await receiver.renewMessageLock(message);
        lockedUntil = Math.max(lockedUntil, renewed.getTime());
      } catch (cause) {
        input.onError(
          new ServiceBusRetryError(
            'lock-renewal-failed',
            'could not renew the lock before an in-memory wait',
            {
              cause,
              ...(input.messageId === undefined ? {} : { messageId: input.messageId }),
            },
          ),
        );
        return false;
      }
      return lockedUntil - clock.now() >= needed;
    },
  };
}
