/** Meta's app secret (signs its webhooks) and the verify token of the webhook subscription handshake. */
export interface WhatsAppSecretValues {
  appSecret: string;
  verifyToken: string;
}

export interface WhatsAppSecrets {
  get(): Promise<WhatsAppSecretValues>;
}
