import { createRequire } from 'node:module';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';

/** The SDK's Long (sequence numbers), typed from the SDK itself and loaded from where it lives. */
export type Long = NonNullable<ServiceBusReceivedMessage['sequenceNumber']>;

const fromSdk = createRequire(require.resolve('@azure/service-bus'));
const LongClass = fromSdk('long') as { fromNumber(value: number): Long };

export const long = (value: number): Long => LongClass.fromNumber(value);
