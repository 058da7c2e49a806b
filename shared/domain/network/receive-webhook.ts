import { timingSafeEqual } from 'node:crypto';
import { isUsableAppSecret, verifyMetaSignature } from '#shared/auth/meta-signature';
import type { Config } from '#shared/config/env';
import { DomainError, ForbiddenError, MalformedJsonError, UnauthorizedError } from '#shared/errors';
import { logger } from '#shared/observability/logger';
import type { Clock } from '#shared/ports/clock';
import type { NotificationInbox } from '#shared/ports/notification-inbox';
import type { WhatsAppSecrets } from '#shared/ports/whatsapp-secrets';

/**
 * Meta's webhook (CONTRACT §5, §13, §21). Internet-facing, so it holds no organisation's data: it verifies, keeps and
 * answers; the network-notifications worker (shared/domain/network/inbox.ts) applies what it kept.
 * 0. Fail closed (503, logged) while the app secret is missing, short, a placeholder, or the local stack's default
 *    outside the local stack.
 * 1. Verify X-Hub-Signature-256 over the raw bytes; otherwise 401 and nothing is kept.
 * 2. It must be JSON (400 otherwise).
 * 3. Keep the notification as it came (the inbox), with the time it was received. A failure to keep it propagates: the answer is 5xx and Meta
 *    retries, so nothing Meta was answered 200 for is lost.
 */
export async function receiveNetworkWebhook(
  deps: {
    whatsappSecrets: WhatsAppSecrets;
    inbox: NotificationInbox;
    clock: Clock;
    config: Pick<Config, 'localStack'>;
  },
  input: { body: Buffer; signature: string | undefined },
): Promise<void> {
  const { appSecret } = await deps.whatsappSecrets.get();
  if (!isUsableAppSecret(appSecret, deps.config.localStack)) {
    logger.error(
      'security: WhatsApp app secret missing, shorter than 32 characters or a placeholder; refusing webhooks',
    );
    throw new DomainError('INTERNAL', 'the webhook is not configured', { status: 503, retryAfterSeconds: 60 });
  }
  if (!verifyMetaSignature(input.body, input.signature, appSecret)) {
    logger.warn('security: network webhook with a missing or wrong signature refused');
    throw new UnauthorizedError('the X-Hub-Signature-256 signature is missing or wrong');
  }
  const text = input.body.toString('utf8');
  try {
    JSON.parse(text);
  } catch {
    throw new MalformedJsonError();
  }
  await deps.inbox.keep(text, deps.clock.now());
}

/** Meta's subscription handshake: echo `hub.challenge` when the verify token matches. */
export async function verifyWebhookSubscription(
  deps: { whatsappSecrets: WhatsAppSecrets },
  query: { 'hub.mode'?: string; 'hub.verify_token'?: string; 'hub.challenge'?: string },
): Promise<string> {
  const expected = Buffer.from((await deps.whatsappSecrets.get()).verifyToken);
  const given = Buffer.from(query['hub.verify_token'] ?? '');
  const valid = given.length === expected.length && timingSafeEqual(given, expected);
  if (query['hub.mode'] !== 'subscribe' || !valid || query['hub.challenge'] === undefined) throw new ForbiddenError();
  return query['hub.challenge'];
}
