/**
 * Stands in for `standardwebhooks` in the console's bundle: the typed client exports `verifyWebhook` for servers,
 * which a browser never calls; without this its HMAC and base64 code would ship to every visitor.
 */
export class WebhookVerificationError extends Error {}
export class Webhook {
  constructor() {
    throw new WebhookVerificationError('webhook verification is not available in the console');
  }
}
