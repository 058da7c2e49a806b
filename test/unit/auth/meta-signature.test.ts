import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isUsableAppSecret, LOCAL_DEVELOPMENT_APP_SECRET, verifyMetaSignature } from '#shared/auth/meta-signature';

const SECRET = 'app-secret';
const body = Buffer.from('{"object":"whatsapp_business_account","entry":[{"changes":[],"text":"café 🎉"}]}');
const sign = (bytes: Buffer, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`;

describe('verifyMetaSignature', () => {
  it('accepts the HMAC of the exact bytes, non-ASCII included (I-2, I-4)', () => {
    expect(verifyMetaSignature(body, sign(body), SECRET)).toBe(true);
    expect(verifyMetaSignature(body, sign(body).toUpperCase().replace('SHA256=', 'sha256='), SECRET)).toBe(true);
  });

  it('refuses a re-serialised body under the original signature (I-4)', () => {
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 1));
    const escaped = Buffer.from(body.toString().replace('é', '\\u00e9'));

    expect(verifyMetaSignature(reserialised, sign(body), SECRET)).toBe(false);
    expect(verifyMetaSignature(escaped, sign(body), SECRET)).toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['wrong secret', sign(body, 'other')],
    ['sha1 prefix', sign(body).replace('sha256=', 'sha1=')],
    ['bare prefix', 'sha256='],
    ['non-hex', `sha256=${'z'.repeat(64)}`],
    ['63 hex characters', sign(body).slice(0, -1)],
    ['two values', `${sign(body)},${sign(body)}`],
  ])('refuses a %s signature without throwing (I-3)', (_, header) => {
    expect(verifyMetaSignature(body, header, SECRET)).toBe(false);
  });
});

describe('isUsableAppSecret', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['shorter than 32 characters', '0123456789abcdef0123456789abcde'],
    ['the placeholder set-me', 'set-me'],
    ['a placeholder repeated to length', 'changeme'.repeat(4)],
    ['a placeholder in capitals with separators', 'YOUR-APP-SECRET-'.repeat(3)],
    ['one repeated character', 'x'.repeat(40)],
  ])('refuses an app secret that is %s', (_, secret) => {
    expect(isUsableAppSecret(secret)).toBe(false);
  });

  it('accepts a Meta-style secret of 32 hex digits', () => {
    expect(isUsableAppSecret('3f9a6c1be47d2058a1c9e6b7d40f2a8e')).toBe(true);
  });

  it("accepts the local stack's default on the local stack only, never in a deployment", () => {
    expect(isUsableAppSecret(LOCAL_DEVELOPMENT_APP_SECRET, true)).toBe(true);
    expect(isUsableAppSecret(LOCAL_DEVELOPMENT_APP_SECRET, false)).toBe(false);
    expect(isUsableAppSecret(LOCAL_DEVELOPMENT_APP_SECRET)).toBe(false);
  });
});
