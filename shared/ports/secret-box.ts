/** Encrypts secrets at rest (webhook signing secrets): KMS on AWS, AES-256-GCM with a local key file locally. */
export interface SecretBox {
  seal(plaintext: string): Promise<string>;
  open(sealed: string): Promise<string>;
}
