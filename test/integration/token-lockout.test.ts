import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { deps } from '#shared/config/deps';
import { createCredential, createOrg } from '#shared/domain/orgs/administer';
import { useLocalStack } from '#test/support/local-stack';

/** POST /token over a connection from `localAddress` (any 127.0.0.0/8 address reaches the stack on Linux). */
function tokenFrom(
  apiUrl: string,
  localAddress: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const call = request(
      `${apiUrl}/token`,
      { method: 'POST', localAddress, headers: { 'content-type': 'application/json', ...headers } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    call.on('error', reject);
    call.end(JSON.stringify(body));
  });
}

describe('token lockout that cannot be aimed (CONTRACT §18)', () => {
  const api = useLocalStack();

  it('locks the (client id, address) pair after 10 failures; the correct secret from a clean address still gets a token, and X-Forwarded-For changes nothing', async () => {
    const { orgId } = await createOrg(deps(), { name: `Org ${Math.random()}` });
    const { clientId, clientSecret } = await createCredential(deps(), { orgId, roles: ['CRM_BOT'] });
    const bot = { clientId, clientSecret };
    const attacker = '127.0.0.11';
    const failures = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      failures.push(
        await tokenFrom(
          api.stack.apiUrl,
          attacker,
          { clientId: bot.clientId, clientSecret: `wrong-${attempt}` },
          { 'x-forwarded-for': `198.51.100.${attempt}` },
        ),
      );
    }

    const lockedPair = await tokenFrom(api.stack.apiUrl, attacker, bot);
    const spoofed = await tokenFrom(api.stack.apiUrl, attacker, bot, { 'x-forwarded-for': '198.51.100.200' });
    const clean = await tokenFrom(api.stack.apiUrl, '127.0.0.12', bot);

    expect(failures.map((response) => response.status)).toEqual(Array(10).fill(401));
    expect(lockedPair.status).toBe(429);
    expect(lockedPair.body.code).toBe('TOO_MANY_ATTEMPTS');
    expect(spoofed.status).toBe(429);
    expect(clean.status).toBe(200);
    expect(clean.body).toMatchObject({ org: orgId, roles: ['CRM_BOT'] });
  });
});
