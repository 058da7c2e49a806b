import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEMO_PHONE_NUMBER_ID } from '#infra/local/seed';
import { LOCAL_DEVELOPMENT_APP_SECRET } from '#shared/auth/meta-signature';
import { deps } from '#shared/config/deps';
import { createCredential, createOrg } from '#shared/domain/orgs/administer';
import { createdGroup } from '#test/support/groups';
import { eventually, useLocalStack } from '#test/support/local-stack';
import { postNotification } from '#test/support/meta';
import { signedMetaRequest } from '#test/support/whatsapp';

describe('responses that carry a secret or a token (CONTRACT §13)', () => {
  const api = useLocalStack();

  it('marks the token, a new subscription with its secret, and a rotated secret Cache-Control: no-store', async () => {
    const token = await api.call('/token', { method: 'POST', json: api.stack.demo!.credentials.CRM_ADMIN });
    const { accessToken } = (await token.json()) as { accessToken: string };
    const created = await api.call(`/webhooks/${api.orgId}`, {
      method: 'POST',
      token: accessToken,
      json: { url: 'http://127.0.0.1:9/hooks' },
    });
    const { webhookId } = (await created.json()) as { webhookId: string };
    const rotated = await api.call(`/webhooks/${api.orgId}/${webhookId}/rotate-secret`, {
      method: 'POST',
      token: accessToken,
    });

    expect([token.status, created.status, rotated.status]).toEqual([200, 201, 200]);
    for (const response of [token, created, rotated]) expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('marks invite links, which let anyone join the group, Cache-Control: no-store', async () => {
    const token = await api.token('CRM_ADMIN');
    const { chatId } = await createdGroup(api, token);

    const read = await api.call(`/groups/${api.orgId}/${chatId}/invite-link`, { token });
    const reset = await api.call(`/groups/${api.orgId}/${chatId}/invite-link/reset`, { method: 'POST', token });

    expect([read.status, reset.status]).toEqual([200, 200]);
    expect(read.headers.get('cache-control')).toBe('no-store');
    expect(reset.headers.get('cache-control')).toBe('no-store');
  });
});

describe('POST /token attempt counting (CONTRACT §13)', () => {
  const api = useLocalStack();

  const attempt = (clientId: string, clientSecret = 'wrong') =>
    api.call('/token', { method: 'POST', json: { clientId, clientSecret } });

  it('checks at most 10 of 50 concurrent wrong attempts for one client id; the others get 429 (A-1)', async () => {
    const { clientId } = api.stack.demo!.credentials.CRM_AGENT;

    const responses = await Promise.all(Array.from({ length: 50 }, () => attempt(clientId)));

    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(40);
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
    const refused = responses.find((response) => response.status === 429)!;
    expect(((await refused.json()) as { code: string }).code).toBe('TOO_MANY_ATTEMPTS');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(800);
  });

  it("does not refuse a client id named after the caller's address because of that address's failures (A-1)", async () => {
    for (let index = 0; index < 10; index++) expect((await attempt(`cli_unknown_${index}`)).status).toBe(401);

    const named = await Promise.all(['ip:127.0.0.1', 'ip:::ffff:127.0.0.1', 'ip:::1'].map((id) => attempt(id)));

    expect(named.map((response) => response.status)).toEqual([401, 401, 401]);
  });

  it('keeps client-id counters out of the address key space, whatever the client id', async () => {
    const { identity } = deps();
    const now = new Date();
    for (const clientId of ['ip:192.0.2.1', '192.0.2.1', 'LOGINADDR#192.0.2.1']) {
      for (let index = 0; index < 3; index++)
        await identity.claimAttempt({ kind: 'client', id: clientId }, now, 900, 3);
    }

    const address = await identity.claimAttempt({ kind: 'address', id: '192.0.2.1' }, now, 900, 1);

    expect(address.allowed).toBe(true);
  });
});

describe('list cursors on every paginated route (CONTRACT §13)', () => {
  const api = useLocalStack();

  interface Listing {
    path: string;
    /** The partition a forger would aim at, and the binding the unkeyed design hashed. */
    partition: string;
    binding: unknown[];
  }

  /** The cursor format before cursors were keyed: anyone could bind a position by hashing the public binding. */
  const unkeyedForgery = (position: Record<string, unknown>, binding: unknown[]) =>
    Buffer.from(
      JSON.stringify({
        p: position,
        b: createHash('sha256').update(JSON.stringify(binding)).digest('base64url').slice(0, 16),
      }),
    ).toString('base64url');

  const keyedLookalike = (position: Record<string, unknown>, tag: Uint8Array) =>
    `${Buffer.from(JSON.stringify(position)).toString('base64url')}.${Buffer.from(tag).toString('base64url')}`;

  it('answers 400 at #/query/cursor, never 5xx, for altered, truncated, forged or foreign cursors (property)', async () => {
    const token = await api.token('CRM_ADMIN');
    const { orgId } = api;
    const { chatId } = await createdGroup(api, token);
    for (const text of ['one', 'two']) {
      const sent = await api.call('/messaging/send-message', { method: 'POST', token, json: { chatId, text } });
      expect(sent.status).toBe(202);
    }
    const webhookIds: string[] = [];
    for (const path of ['/a', '/b']) {
      const created = await api.call(`/webhooks/${orgId}`, {
        method: 'POST',
        token,
        json: { url: `http://127.0.0.1:9${path}` },
      });
      webhookIds.push(((await created.json()) as { webhookId: string }).webhookId);
    }
    for (const reportType of ['CHAT', 'GOAL']) {
      expect((await api.call(`/reports/${orgId}`, { method: 'POST', token, json: { reportType } })).status).toBe(202);
    }
    const listings: Listing[] = [
      { path: `/channels/${orgId}`, partition: `ORG#${orgId}`, binding: ['channels', orgId] },
      { path: `/webhooks/${orgId}`, partition: `ORG#${orgId}`, binding: ['webhooks', orgId] },
      {
        path: `/webhooks/${orgId}/${webhookIds[0]}/deliveries`,
        partition: `ORG#${orgId}#WHK#${webhookIds[0]}`,
        binding: ['deliveries', orgId, webhookIds[0]],
      },
      {
        path: `/chats/${orgId}/${chatId}/messages`,
        partition: `ORG#${orgId}#CHAT#${chatId}`,
        binding: ['messages', orgId, chatId],
      },
      {
        path: `/groups/${orgId}/${chatId}/join-requests`,
        partition: `ORG#${orgId}#CHAT#${chatId}`,
        binding: ['join-requests', orgId, chatId],
      },
      { path: `/reports/${orgId}`, partition: `ORG#${orgId}`, binding: ['reports', orgId, null, null] },
    ];
    const list = (path: string, cursor?: string) =>
      api.call(
        `${path}${path.includes('?') ? '&' : '?'}limit=1${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
        { token },
      );
    const genuine: string[] = [];
    for (const path of [...listings.map((listing) => listing.path), `/reports/${orgId}?reportType=CHAT`]) {
      const response = await list(path);
      expect(response.status).toBe(200);
      const { nextCursor } = (await response.json()) as { nextCursor: string | null };
      if (nextCursor) genuine.push(nextCursor);
    }
    expect(genuine.length).toBeGreaterThanOrEqual(4);
    const valid = genuine[0]!;
    expect((await list(listings[0]!.path, valid)).status).toBe(200);

    const keyValue = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.object(),
      fc.array(fc.string()),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...listings),
        fc.constantFrom(...genuine),
        fc.oneof(
          fc.constant({ kind: 'foreign' as const }),
          fc.nat().map((at) => ({ kind: 'truncated' as const, at })),
          fc
            .tuple(fc.nat(), fc.constantFrom(...'AZaz09-_.='))
            .map(([at, char]) => ({ kind: 'changed' as const, at, char })),
          fc.string({ minLength: 1 }).map((text) => ({ kind: 'extended' as const, text })),
          fc.string({ minLength: 1, maxLength: 200 }).map((text) => ({ kind: 'arbitrary' as const, text })),
          fc
            .record({ SK: keyValue, extra: fc.option(keyValue, { nil: undefined }) })
            .map((rest) => ({ kind: 'unkeyed' as const, rest })),
          fc
            .tuple(fc.record({ SK: keyValue }), fc.uint8Array({ minLength: 16, maxLength: 16 }))
            .map(([rest, tag]) => ({ kind: 'lookalike' as const, rest, tag })),
        ),
        async (listing, cursor, attack) => {
          let hostile: string;
          switch (attack.kind) {
            case 'foreign':
              fc.pre(listing.path !== listings[0]!.path || cursor !== valid);
              hostile = cursor;
              break;
            case 'truncated':
              hostile = cursor.slice(0, attack.at % cursor.length);
              break;
            case 'changed': {
              const at = attack.at % cursor.length;
              hostile = `${cursor.slice(0, at)}${attack.char}${cursor.slice(at + 1)}`;
              break;
            }
            case 'extended':
              hostile = cursor + attack.text;
              break;
            case 'arbitrary':
              hostile = attack.text;
              break;
            case 'unkeyed':
              hostile = unkeyedForgery({ PK: listing.partition, ...attack.rest }, listing.binding);
              break;
            case 'lookalike':
              hostile = keyedLookalike({ PK: listing.partition, ...attack.rest }, attack.tag);
              break;
          }
          fc.pre(!genuine.includes(hostile));

          const response = await list(listing.path, hostile);

          expect(response.status).toBe(400);
          const problem = (await response.json()) as { code: string; errors: { pointer: string }[] };
          expect(problem.code).toBe('VALIDATION_FAILED');
          expect(problem.errors.map((error) => error.pointer)).toEqual(['#/query/cursor']);
        },
      ),
      { numRuns: Number(process.env.CURSOR_RUNS ?? 150) },
    );
    // Each refused cursor also counts in, and is taken back from, the organisation's quota (CONTRACT §18).
  }, 180_000);
});

describe('webhook subscription limits (CONTRACT §13)', () => {
  const api = useLocalStack({ WEBHOOK_SUBSCRIPTION_LIMIT: '20' });

  async function newOrg() {
    const { orgId } = await createOrg(deps(), { name: `Org ${Math.random()}` });
    const { clientId, clientSecret } = await createCredential(deps(), { orgId, roles: ['CRM_ADMIN'] });
    const response = await api.call('/token', { method: 'POST', json: { clientId, clientSecret } });
    return { orgId, token: ((await response.json()) as { accessToken: string }).accessToken };
  }

  const subscribe = (orgId: string, token: string, index: number) =>
    api.call(`/webhooks/${orgId}`, { method: 'POST', token, json: { url: `http://127.0.0.1:9/hook-${index}` } });

  it('accepts exactly 20 of 30 concurrent subscriptions and answers the rest 422 WEBHOOK_LIMIT_REACHED', async () => {
    const { orgId, token } = await newOrg();

    const responses = await Promise.all(Array.from({ length: 30 }, (_, index) => subscribe(orgId, token, index)));

    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(20);
    expect(statuses.filter((status) => status === 422)).toHaveLength(10);
    const refused = responses.find((response) => response.status === 422)!;
    expect(await refused.json()).toMatchObject({ code: 'WEBHOOK_LIMIT_REACHED', limit: 20 });
    expect(await deps().webhooks.allSubscriptions(orgId)).toHaveLength(20);
  });

  it('frees a slot when a subscription is deleted, for this organisation only', async () => {
    const full = await newOrg();
    const other = await newOrg();
    const ids: string[] = [];
    for (let index = 0; index < 20; index++) {
      ids.push(((await (await subscribe(full.orgId, full.token, index)).json()) as { webhookId: string }).webhookId);
    }

    const refused = await subscribe(full.orgId, full.token, 20);
    const elsewhere = await subscribe(other.orgId, other.token, 0);
    const deleted = await api.call(`/webhooks/${full.orgId}/${ids[0]}`, { method: 'DELETE', token: full.token });
    const afterDelete = await subscribe(full.orgId, full.token, 21);

    expect([refused.status, elsewhere.status, deleted.status, afterDelete.status]).toEqual([422, 201, 204, 201]);
  });

  it('keeps at most two live secrets: a rotation during an overlap retires the oldest at once', async () => {
    const { orgId, token } = await newOrg();
    const { webhookId, secret: first } = (await (await subscribe(orgId, token, 0)).json()) as {
      webhookId: string;
      secret: string;
    };
    const rotate = async () =>
      (
        (await (await api.call(`/webhooks/${orgId}/${webhookId}/rotate-secret`, { method: 'POST', token })).json()) as {
          secret: string;
        }
      ).secret;

    const second = await rotate();
    const third = await rotate();

    const stored = (await deps().webhooks.getSubscription(orgId, webhookId))!;
    const now = Date.now();
    const live = stored.secrets.filter((secret) => !secret.retiresAt || Date.parse(secret.retiresAt) > now);
    const opened = await Promise.all(live.map((secret) => deps().secretBox.open(secret.sealed, { orgId, webhookId })));
    expect(opened).toEqual([third, second]);
    expect(opened).not.toContain(first);
  });
});

describe('message send rate limit (CONTRACT §13)', () => {
  const api = useLocalStack({ MESSAGE_SEND_RATE_LIMIT: '4/86400' });

  it('counts messages and each invitation against one window per organisation: 429 RATE_LIMITED with Retry-After (C-3)', async () => {
    const token = await api.token('CRM_ADMIN');
    const { chatId } = await createdGroup(api, token);
    const send = (id = chatId) =>
      api.call('/messaging/send-message', { method: 'POST', token, json: { chatId: id, text: 'hello' } });
    const invite = (phoneNumbers: string[]) =>
      api.call(`/groups/${api.orgId}/${chatId}/participants`, { method: 'POST', token, json: { phoneNumbers } });

    const unknownChat = await send('cht_unknown');
    const sent = await Promise.all([send(), send(), send()]);
    const tooManyInvitations = await invite(['+4915100000001', '+4915100000002']);
    const oneInvitation = await invite(['+4915100000003']);
    const overLimit = await send();

    expect(unknownChat.status).toBe(404);
    expect(sent.map((response) => response.status)).toEqual([202, 202, 202]);
    expect(tooManyInvitations.status).toBe(429);
    expect(oneInvitation.status).toBe(202);
    expect(overLimit.status).toBe(429);
    expect(((await overLimit.json()) as { code: string }).code).toBe('RATE_LIMITED');
    expect(Number(overLimit.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('inbound notifications are scoped to their phone number (CONTRACT §13)', () => {
  const api = useLocalStack();
  const OTHER_NUMBER = '100000000000003';
  let sequence = 0;

  const notify = async (phoneNumberId: string, field: string, value: Record<string, unknown>) => {
    const payload = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '100000000000900',
          changes: [
            {
              field,
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '4915100000001', phone_number_id: phoneNumberId },
                ...value,
              },
            },
          ],
        },
      ],
    };
    const response = await postNotification(api, payload);
    expect(response.status).toBe(200);
  };
  const inbound = (groupId: string, text: string) => ({
    messages: [
      {
        from: '4915112345678',
        id: `wamid.scope-${++sequence}-${Date.now()}`,
        timestamp: String(Math.floor(Date.now() / 1000)),
        type: 'text',
        text: { body: text },
        group_id: groupId,
      },
    ],
  });
  const texts = async (chatId: string, token: string) =>
    (
      (await (await api.call(`/chats/${api.orgId}/${chatId}/messages?limit=100`, { token })).json()) as {
        messages: { text: string }[];
      }
    ).messages.map((message) => message.text);

  it("ignores a message or a participant change reported for another number than the group's channel (I-6)", async () => {
    const token = await api.token('CRM_ADMIN');
    const { chatId, groupId } = await createdGroup(api, token);

    await notify(OTHER_NUMBER, 'messages', inbound(groupId, 'from another number'));
    await notify('', 'messages', inbound(groupId, 'from no number'));
    await notify(OTHER_NUMBER, 'group_participants_update', {
      groups: [{ type: 'group_participants_add', group_id: groupId, added_participants: [{ wa_id: '4915199999999' }] }],
    });
    await notify(DEMO_PHONE_NUMBER_ID, 'messages', inbound(groupId, 'from the right number'));

    expect(await texts(chatId, token)).toEqual(['from the right number']);
    expect((await deps().chats.getChat(api.orgId, chatId))!.participants ?? []).toEqual([]);
  });

  it("ignores a status reported for another number than the message's channel (I-6)", async () => {
    const token = await api.token('CRM_ADMIN');
    const { chatId, groupId } = await createdGroup(api, token);
    api.stack.simulator!.join(groupId, '4915112345678');
    const sent = await api.call('/messaging/send-message', { method: 'POST', token, json: { chatId, text: 'hi' } });
    const { messageId } = (await sent.json()) as { messageId: string };
    const message = await eventually(async () => {
      const stored = await deps().chats.getMessage(api.orgId, chatId, messageId);
      expect(stored).toMatchObject({ networkMessageId: expect.any(String) });
      return stored!;
    });
    const status = (to: string) => ({
      statuses: [{ id: message.networkMessageId, status: to, timestamp: String(Math.floor(Date.now() / 1000)) }],
    });

    await notify(OTHER_NUMBER, 'messages', status('read'));
    const afterForeign = await deps().chats.getMessage(api.orgId, chatId, messageId);
    await notify(DEMO_PHONE_NUMBER_ID, 'messages', status('read'));
    const afterOwn = await deps().chats.getMessage(api.orgId, chatId, messageId);

    expect(afterForeign!.status).not.toBe('read');
    expect(afterOwn!.status).toBe('read');
  });

  it('keeps a confirmation for an unknown request id only for a number of ours, trimmed to what is applied', async () => {
    const confirmation = (requestId: string) => ({
      groups: [
        {
          type: 'group_create',
          request_id: requestId,
          group_id: 'G-held',
          subject: 'x'.repeat(10_000),
          invite_link: 'https://chat.whatsapp.com/held',
          padding: 'y'.repeat(10_000),
        },
      ],
    });

    await notify('999999999999999', 'group_lifecycle_update', confirmation('req-foreign-number'));
    await notify(DEMO_PHONE_NUMBER_ID, 'group_lifecycle_update', confirmation('req-own-number'));

    expect(await deps().groups.heldConfirmation(api.orgId, 'req-foreign-number')).toBeUndefined();
    const held = (await deps().groups.heldConfirmation(api.orgId, 'req-own-number')) as {
      group: Record<string, unknown>;
    };
    expect(held.group).toEqual({
      request_id: 'req-own-number',
      group_id: 'G-held',
      invite_link: 'https://chat.whatsapp.com/held',
      timestamp: expect.any(Number),
    });
  });

  it('never re-links a network group id to another chat', async () => {
    const token = await api.token('CRM_ADMIN');
    const { chatId, groupId } = await createdGroup(api, token);

    const relinked = await deps().chats.linkExternalChat(groupId, {
      orgId: api.orgId,
      chatId: 'cht_intruder',
      phoneNumberId: DEMO_PHONE_NUMBER_ID,
    });

    expect(relinked).toBe(false);
    expect(await deps().chats.findExternalChat(groupId)).toMatchObject({ chatId });
  });
});

describe.each([
  ['blank', '', {}],
  ['a placeholder', 'set-me', {}],
  ['shorter than 32 characters', 'a-real-looking-but-short-secret', {}],
  ["the local stack's default, outside the local stack", LOCAL_DEVELOPMENT_APP_SECRET, { WPCRM_LOCAL_STACK: 'false' }],
])('the network webhook with an app secret that is %s (CONTRACT §13)', (_, appSecret, env) => {
  const api = useLocalStack({ WHATSAPP_APP_SECRET: appSecret || ' ', ...env });

  it('answers 503 and applies nothing, even to a body signed with that secret (I-3)', async () => {
    const { body, headers } = signedMetaRequest({ object: 'whatsapp_business_account', entry: [] }, appSecret || ' ');

    const response = await api.call('/network/whatsapp/webhook', { method: 'POST', body, headers });

    expect(response.status).toBe(503);
    expect(((await response.json()) as { code: string }).code).toBe('INTERNAL');
  });
});
