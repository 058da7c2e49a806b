import { createHash } from 'node:crypto';
import { encodeTime } from 'ulid';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The id of an inbound message, derived from Meta's wamid and time: time-ordered like our other message ids, and
 * the same for a replayed notification, so storing it twice is a no-op.
 */
export function inboundMessageId(networkMessageId: string, at: Date): string {
  const digest = createHash('sha256').update(networkMessageId).digest();
  let random = '';
  for (let index = 0; index < 16; index++) random += CROCKFORD[digest[index]! % 32];
  return `msg_${encodeTime(at.getTime(), 10)}${random}`;
}

/** Meta's wa_id is the phone number's digits; we show E.164. */
export const phoneFromWaId = (waId: string | undefined) => (waId ? `+${waId.replace(/^\+/, '')}` : null);
