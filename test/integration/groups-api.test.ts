import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deps } from '#shared/config/deps';
import { createChannel, createCredential, createOrg } from '#shared/domain/orgs/administer';
import { pollStatus, requestGroup, untilFinal } from '#test/support/groups';
import { eventually, useLocalStack } from '#test/support/local-stack';

const problem = async (response: Response) =>
  (await response.json()) as { code: string; reason?: string; errors?: { pointer: string }[] };

describe('POST /groups/:orgId — refusals', () => {
  const api = useLocalStack({ GROUP_CREATE_RATE_LIMIT: '4/60' });

  it.each([
    ['an unknown property', { org: 'x' }, '/org'],
    ['an empty subject', { subject: '' }, '/subject'],
    ['a blank subject', { subject: '   ' }, '/subject'],
    ['a 129-character subject', { subject: 'é'.repeat(129) }, '/subject'],
    ['a 2049-character description', { description: 'x'.repeat(2049) }, '/description'],
    ['a non-boolean requireJoinApproval', { requireJoinApproval: 'yes' }, '/requireJoinApproval'],
    ['an empty channelId', { channelId: '' }, '/channelId'],
  ])('answers 400 VALIDATION_FAILED for %s (C-2)', async (_, body, pointer) => {
    const response = await requestGroup(api, await api.token('CRM_ADMIN'), body);

    expect(response.status).toBe(400);
    const details = await problem(response);
    expect(details.code).toBe('VALIDATION_FAILED');
    expect(details.errors?.map((error) => error.pointer)).toContain(pointer);
  });

  it('accepts a 128-character subject counted in code points', async () => {
    const response = await requestGroup(api, await api.token('CRM_BOT'), { subject: `  ${'🎉'.repeat(128)}  ` });

    expect(response.status).toBe(202);
  });

  it.each([['x'.repeat(256)], ['schlüssel']])('answers 400 for an Idempotency-Key %#', async (key) => {
    const response = await requestGroup(api, await api.token('CRM_ADMIN'), {}, { 'idempotency-key': key });

    expect(response.status).toBe(400);
    expect((await problem(response)).errors?.[0]?.pointer).toBe('#/header/idempotency-key');
  });

  it('answers 401 without a token, 401 ORG_MISMATCH for another organisation and 403 for an agent', async () => {
    const none = await api.call(`/groups/${api.orgId}`, { method: 'POST', json: { channelId: 'x', subject: 's' } });
    const other = await api.call('/groups/0b7f3a52-6d1e-4c8f-9a2b-3c4d5e6f7a8b', {
      method: 'POST',
      token: await api.token('CRM_ADMIN'),
      json: { channelId: 'x', subject: 's' },
    });
    const agent = await requestGroup(api, await api.token('CRM_AGENT'));

    expect(none.status).toBe(401);
    expect(other.status).toBe(401);
    expect((await problem(other)).code).toBe('ORG_MISMATCH');
    expect(agent.status).toBe(403);
  });

  it("answers 404 CHANNEL_NOT_FOUND for an unknown channel and for another organisation's channel", async () => {
    const { orgId } = await createOrg(deps(), { name: 'Other' });
    const { channelId: foreign } = await createChannel(deps(), {
      orgId,
      name: 'Foreign',
      type: 'MESSAGING_OFFICIAL',
      phoneNumber: '+4915100000099',
      officialBusinessAccount: true,
      phoneNumberId: '999',
      accessToken: 't',
    });
    const token = await api.token('CRM_ADMIN');

    const unknown = await requestGroup(api, token, { channelId: 'ch_nope' });
    const crossTenant = await requestGroup(api, token, { channelId: foreign });

    expect(unknown.status).toBe(404);
    expect(crossTenant.status).toBe(404);
    expect((await problem(unknown)).code).toBe('CHANNEL_NOT_FOUND');
    expect(await problem(crossTenant)).toMatchObject({ code: 'CHANNEL_NOT_FOUND' });
  });

  it('answers 422 CHANNEL_NOT_ELIGIBLE with the reason for each ineligible channel', async () => {
    const { channelId: notEligible } = await createChannel(deps(), {
      orgId: api.orgId,
      name: 'OBA without groups',
      type: 'MESSAGING_OFFICIAL',
      phoneNumber: '+4915100000098',
      officialBusinessAccount: true,
      groupsEligible: false,
      phoneNumberId: '998',
      accessToken: 't',
    });
    const token = await api.token('ACCOUNT_OWNER');
    const { unofficial, notOfficialBusinessAccount } = api.stack.demo!.channels;

    const reasons = [];
    for (const channelId of [unofficial, notOfficialBusinessAccount, notEligible]) {
      const response = await requestGroup(api, token, { channelId });
      expect(response.status).toBe(422);
      reasons.push(await problem(response));
    }

    expect(reasons.map((details) => [details.code, details.reason])).toEqual([
      ['CHANNEL_NOT_ELIGIBLE', 'NOT_MESSAGING_OFFICIAL'],
      ['CHANNEL_NOT_ELIGIBLE', 'NOT_OFFICIAL_BUSINESS_ACCOUNT'],
      ['CHANNEL_NOT_ELIGIBLE', 'NOT_GROUPS_ELIGIBLE'],
    ]);
  });

  it('answers 429 RATE_LIMITED with Retry-After past the limit, without blocking another organisation (C-3)', async () => {
    const { orgId } = await createOrg(deps(), { name: 'Busy' });
    const { channelId } = await createChannel(deps(), {
      orgId,
      name: 'WA',
      type: 'MESSAGING_OFFICIAL',
      phoneNumber: '+4915100000097',
      officialBusinessAccount: true,
      phoneNumberId: '997',
      accessToken: 't',
    });
    const { clientId, clientSecret } = await createCredential(deps(), { orgId, roles: ['CRM_ADMIN'] });
    const { accessToken } = (await (
      await api.call('/token', { method: 'POST', json: { clientId, clientSecret } })
    ).json()) as {
      accessToken: string;
    };
    const post = (id = channelId) =>
      api.call(`/groups/${orgId}`, { method: 'POST', token: accessToken, json: { channelId: id, subject: 'Busy' } });

    const refusedBeforeLimits = await post('ch_unknown');
    const statuses = await Promise.all([post(), post(), post(), post(), post(), post()]);
    const limited = statuses.find((response) => response.status === 429)!;
    const demo = await requestGroup(api, await api.token('CRM_ADMIN'));

    expect(refusedBeforeLimits.status).toBe(404);
    expect(statuses.map((response) => response.status).sort()).toEqual([202, 202, 202, 202, 429, 429]);
    expect((await problem(limited)).code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(demo.status).toBe(202);
  });
});

describe('POST /groups/:orgId — idempotency', () => {
  const api = useLocalStack();

  it('answers a sequential retry with the same requestId and Idempotent-Replayed, queueing once (D-1)', async () => {
    const token = await api.token('CRM_ADMIN');
    const headers = { 'idempotency-key': 'retry-1' };

    const first = await requestGroup(api, token, { subject: 'Once' }, headers);
    const second = await requestGroup(api, token, { subject: 'Once' }, headers);

    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    const [a, b] = [(await first.json()) as { requestId: string }, (await second.json()) as { requestId: string }];
    expect(b.requestId).toBe(a.requestId);
    await untilFinal(api, token, a.requestId);
    expect(api.stack.simulator!.groups().filter((group) => group.subject === 'Once')).toHaveLength(1);
  });

  it('gives 20 concurrent calls with one key one request: replays or 409, never 500, one group (D-2)', async () => {
    const token = await api.token('CRM_ADMIN');

    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        requestGroup(api, token, { subject: 'Concurrent' }, { 'idempotency-key': 'burst' }),
      ),
    );

    const statuses = responses.map((response) => response.status);
    expect(statuses.every((status) => status === 202 || status === 409)).toBe(true);
    const ids = new Set<string>();
    for (const response of responses.filter((candidate) => candidate.status === 202)) {
      ids.add(((await response.json()) as { requestId: string }).requestId);
    }
    expect(ids.size).toBe(1);
    await untilFinal(api, token, [...ids][0]!);
    await api.stack.simulator!.flushWebhooks();
    expect(api.stack.simulator!.groups().filter((group) => group.subject === 'Concurrent')).toHaveLength(1);
  });

  it('answers 422 IDEMPOTENCY_KEY_REUSED for the same key with another body (D-3)', async () => {
    const token = await api.token('CRM_ADMIN');
    await requestGroup(api, token, { subject: 'First' }, { 'idempotency-key': 'k-reuse' });

    const reused = await requestGroup(api, token, { subject: 'Second' }, { 'idempotency-key': 'k-reuse' });

    expect(reused.status).toBe(422);
    expect((await problem(reused)).code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('does not store a failed first call: the key is free for a corrected retry', async () => {
    const token = await api.token('CRM_ADMIN');

    const failed = await requestGroup(api, token, { channelId: 'ch_missing' }, { 'idempotency-key': 'k-fix' });
    const fixed = await requestGroup(api, token, {}, { 'idempotency-key': 'k-fix' });

    expect(failed.status).toBe(404);
    expect(fixed.status).toBe(202);
  });
});

describe('network webhook security', () => {
  const api = useLocalStack();
  const secret = 'local-whatsapp-app-secret-for-development-only';

  it('answers the verification handshake with the challenge, and 403 for a wrong token (I-1)', async () => {
    const good = await api.call(
      '/network/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=local-whatsapp-verify-token&hub.challenge=12345',
    );
    const bad = await api.call(
      '/network/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=12345',
    );

    expect(good.status).toBe(200);
    expect(await good.text()).toBe('12345');
    expect(bad.status).toBe(403);
  });

  it('refuses unsigned and wrongly signed notifications with 401 and changes nothing (I-3)', async () => {
    const token = await api.token('CRM_ADMIN');
    api.stack.simulator!.scriptNextGroup({ outcome: 'silent' });
    const { requestId } = (await (await requestGroup(api, token, { subject: 'Unsigned' })).json()) as {
      requestId: string;
    };
    // The worker marks the request `creating` before it calls Graph: wait for the call itself, so that nothing the
    // worker does later can be mistaken for an effect of the notifications below.
    await eventually(() =>
      expect(
        api.stack.simulator!.requestLog.some(
          (entry) =>
            entry.method === 'POST' &&
            entry.path.endsWith('/groups') &&
            (entry.body as { subject?: string }).subject === 'Unsigned',
        ),
      ).toBe(true),
    );
    await eventually(async () => expect((await pollStatus(api, token, requestId)).status).toBe('creating'));
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '1',
          changes: [
            {
              field: 'group_lifecycle_update',
              value: {
                metadata: { phone_number_id: '100000000000001' },
                groups: [
                  {
                    type: 'group_create',
                    request_id: 'anything',
                    group_id: 'G',
                    invite_link: 'https://chat.whatsapp.com/x',
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    const wrong = `sha256=${createHmac('sha256', 'not-the-secret').update(body).digest('hex')}`;

    const unsigned = await api.call('/network/whatsapp/webhook', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    const forged = await api.call('/network/whatsapp/webhook', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': wrong },
    });
    const valid = await api.call('/network/whatsapp/webhook', {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
      },
    });

    expect(unsigned.status).toBe(401);
    expect(forged.status).toBe(401);
    expect(valid.status).toBe(200);
    expect((await pollStatus(api, token, requestId)).status).toBe('creating');
  });

  it('answers 400 for a signed body that is not JSON, and 200 for JSON that is no notification (skipped, CONTRACT §16)', async () => {
    const post = (body: string) =>
      api.call('/network/whatsapp/webhook', {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
        },
      });

    expect((await post('{"hello":')).status).toBe(400);
    expect((await post('{"hello":"world"}')).status).toBe(200);
  });
});
