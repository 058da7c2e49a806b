import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, signWebhook, webhookHeaders } from '#shared/domain/webhooks/signature';

const now = () => Math.floor(Date.now() / 1000);
const body = JSON.stringify({ type: 'group.created', subject: 'Équipe — ventes ✓', chat_id: 'cht_01J' });

describe('generateWebhookSecret', () => {
  it('returns whsec_ and the base64 of 32 random bytes, different every time', () => {
    const first = generateWebhookSecret();
    const second = generateWebhookSecret();

    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(first.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(second).not.toBe(first);
  });
});

describe('webhookHeaders', () => {
  it('produces headers the standardwebhooks library verifies, with the exact body', () => {
    const secret = generateWebhookSecret();

    const headers = webhookHeaders({ id: 'evt_01JABC', timestamp: now(), body }, [secret]);

    expect(headers['content-type']).toBe('application/json');
    expect(headers['webhook-id']).toBe('evt_01JABC');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('signs like the reference implementation', () => {
    const secret = generateWebhookSecret();
    const timestamp = now();

    const signature = signWebhook({ id: 'evt_1', timestamp, body }, [secret]);

    expect(signature).toBe(new Webhook(secret).sign('evt_1', new Date(timestamp * 1000), body));
  });

  it('verifies with either secret during a rotation, and not with a third', () => {
    const [oldSecret, newSecret] = [generateWebhookSecret(), generateWebhookSecret()];

    const headers = webhookHeaders({ id: 'evt_rot', timestamp: now(), body }, [oldSecret, newSecret]);

    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(newSecret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow(WebhookVerificationError);
  });

  it('fails verification when the body, id or timestamp is changed', () => {
    const secret = generateWebhookSecret();
    const timestamp = now();
    const headers = webhookHeaders({ id: 'evt_t', timestamp, body }, [secret]);
    const webhook = new Webhook(secret);

    const tampered = [
      () => webhook.verify(body.replace('ventes', 'achats'), headers),
      () => webhook.verify(`${body} `, headers),
      () => webhook.verify(body, { ...headers, 'webhook-id': 'evt_u' }),
      () => webhook.verify(body, { ...headers, 'webhook-timestamp': String(timestamp - 1) }),
    ];

    for (const attempt of tampered) expect(attempt).toThrow(WebhookVerificationError);
  });

  it('refuses an id with a dot, a fractional timestamp, no secret or a malformed secret', () => {
    const secret = generateWebhookSecret();

    expect(() => signWebhook({ id: 'evt.1', timestamp: now(), body }, [secret])).toThrow();
    expect(() => signWebhook({ id: 'evt_1', timestamp: 1.5, body }, [secret])).toThrow();
    expect(() => signWebhook({ id: 'evt_1', timestamp: now(), body }, [])).toThrow();
    expect(() => signWebhook({ id: 'evt_1', timestamp: now(), body }, ['not-a-secret'])).toThrow();
    expect(() => signWebhook({ id: 'evt_1', timestamp: now(), body }, ['whsec_c2hvcnQ='])).toThrow();
  });
});
