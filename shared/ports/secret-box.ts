/**
 * What a sealed secret belongs to (the webhook subscription's organisation and id): the ciphertext is bound to it, so
 * it cannot be opened as another subscription's (KMS encryption context; additional authenticated data locally).
 */
export type SecretContext = Record<string, string>;

/** Encrypts secrets at rest (webhook signing secrets): KMS on AWS, AES-256-GCM with a local key file locally. */
export interface SecretBox {
  seal(plaintext: string, context: SecretContext): Promise<string>;
  /** Opens a secret sealed with `context`; one sealed before contexts existed opens without it. */
  open(sealed: string, context: SecretContext): Promise<string>;
}
