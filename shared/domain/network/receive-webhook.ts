import { timingSafeEqual } from 'node:crypto';
import { isUsableAppSecret, verifyMetaSignature } from '#shared/auth/meta-signature';
import type { Config } from '#shared/config/env';
import type { NetworkUpdateDeps } from '#shared/domain/chats/network-updates';
import type { ApplyGroupCreateDeps } from '#shared/domain/groups/apply-group-create';
import type { GroupLifecycleDeps } from '#shared/domain/groups/apply-group-lifecycle';
import { DomainError, ForbiddenError, MalformedJsonError, UnauthorizedError } from '#shared/errors';
import { logger } from '#shared/observability/logger';
import type { WhatsAppSecrets } from '#shared/ports/whatsapp-secrets';
import { applyNetworkNotification } from './apply-notification.ts';

/**
 * Meta's webhook (CONTRACT §5, §13).
 * 0. Fail closed (503, logged) while the app secret is missing, short, a placeholder, or the local stack's default
 *    outside the local stack.
 * 1. Verify X-Hub-Signature-256 over the raw bytes; otherwise 401 and nothing changes.
 * 2. Parse the JSON (400 when it is not JSON).
 * 3. Apply every readable item, skipping (and alerting on) the others (CONTRACT §16); a storage failure
 *    propagates, so the answer is 5xx and Meta retries.
 */
export async function receiveNetworkWebhook(
  deps: ApplyGroupCreateDeps &
    NetworkUpdateDeps &
    GroupLifecycleDeps & { whatsappSecrets: WhatsAppSecrets; config: Pick<Config, 'localStack'> },
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
  let json: unknown;
  try {
    json = JSON.parse(input.body.toString('utf8'));
  } catch {
    throw new MalformedJsonError();
  }
  await applyNetworkNotification(deps, json);
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
