import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, webhookHeaders } from '#shared/domain/webhooks/signature';
import { EVENT_EXAMPLES } from '#shared/openapi/examples';
import { generateSchema, SCHEMA_FILE } from '../../../clients/typescript/scripts/generate.ts';
import {
  createWpCrmClient,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from '../../../clients/typescript/src/index.ts';

describe('@wp-crm/client (CONTRACT §19)', () => {
  it('is generated from the current openapi.json: regenerate with `npm run generate -w @wp-crm/client`', async () => {
    const committed = readFileSync(SCHEMA_FILE, 'utf8');

    expect(await generateSchema(), 'clients/typescript/src/schema.ts is stale').toBe(committed);
  }, 60_000);

  it('verifies a delivery signed by the service, with the old or the new secret during a rotation', () => {
    const [old, current] = [generateWebhookSecret(), generateWebhookSecret()];
    const body = JSON.stringify(EVENT_EXAMPLES['group.created']);
    const headers = webhookHeaders(
      { id: 'evt_01M80K2E5G9J2L6N0Q4T7W1Y3A', timestamp: Math.floor(Date.now() / 1000), body },
      [old, current],
    );

    const event: WebhookEvent = verifyWebhook(current, body, new Headers(headers));
    expect(verifyWebhook([generateWebhookSecret(), old], body, headers)).toEqual(event);
    expect(event.type).toBe('group.created');
    if (event.type === 'group.created') expect(event.invite_link).toMatch(/^https:\/\/chat\.whatsapp\.com\//);
  });

  it('refuses a changed body, a foreign secret and a stale timestamp', () => {
    const secret = generateWebhookSecret();
    const body = JSON.stringify(EVENT_EXAMPLES['report.completed']);
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders({ id: 'evt_1', timestamp: now, body }, [secret]);
    const stale = webhookHeaders({ id: 'evt_1', timestamp: now - 3600, body }, [secret]);

    expect(() => verifyWebhook(secret, body.replace('1284', '1285'), headers)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(generateWebhookSecret(), body, headers)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(secret, body, stale)).toThrow(WebhookVerificationError);
  });

  it('sends the bearer token, from a string or a function, on typed calls with the base path', async () => {
    const seen: Request[] = [];
    const fetch = async (request: Request) => {
      seen.push(request);
      return Response.json({ status: 'ok' }, { headers: { 'x-request-id': 'r1' } });
    };
    const client = createWpCrmClient({ baseUrl: 'http://127.0.0.1:3000', token: async () => 'tok', fetch });

    const { data } = await client.GET('/api/wp-crm/health');
    await createWpCrmClient({ baseUrl: 'http://127.0.0.1:3000', token: 'tok2', fetch }).GET('/api/wp-crm/health');

    expect(data?.status).toBe('ok');
    expect(seen.map((request) => [request.url, request.headers.get('authorization')])).toEqual([
      ['http://127.0.0.1:3000/api/wp-crm/health', 'Bearer tok'],
      ['http://127.0.0.1:3000/api/wp-crm/health', 'Bearer tok2'],
    ]);
  });
});
