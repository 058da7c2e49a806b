import { describe, expect, it } from 'vitest';
import { deps } from '#shared/config/deps';
import { createCredential, createOrg } from '#shared/domain/orgs/administer';
import { eventIdFor } from '#shared/events/domain-event';
import { createdGroup } from '#test/support/groups';
import { eventually, type TestStack, useLocalStack } from '#test/support/local-stack';
import { useReceiver } from '#test/support/receiver';

async function newOrg(api: TestStack) {
  const { orgId } = await createOrg(deps(), { name: `Org ${Math.random()}` });
  const { clientId, clientSecret } = await createCredential(deps(), { orgId, roles: ['CRM_ADMIN'] });
  const response = await api.call('/token', { method: 'POST', json: { clientId, clientSecret } });
  return { orgId, token: ((await response.json()) as { accessToken: string }).accessToken };
}

describe('per-organisation API quota (CONTRACT §18)', () => {
  const api = useLocalStack({ ORG_REQUEST_RATE_LIMIT: '5/3600' });

  it('answers 429 RATE_LIMITED with Retry-After past ORG_REQUEST_RATE_LIMIT, across routes, for that organisation only', async () => {
    const a = await newOrg(api);
    const b = await newOrg(api);
    const read = (org: { orgId: string; token: string }, path: string) => api.call(`${path}/${org.orgId}`, org);

    const admitted = await Promise.all([
      read(a, '/channels'),
      read(a, '/webhooks'),
      read(a, '/reports'),
      read(a, '/channels'),
      read(a, '/webhooks'),
      read(a, '/reports'),
      read(a, '/channels'),
    ]);
    const other = await read(b, '/channels');

    const statuses = admitted.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const refused = admitted.find((response) => response.status === 429)!;
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(await refused.json()).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfterSeconds: retryAfter });
    expect(other.status).toBe(200);
  });

  it('does not count requests refused before the limits: bad token, bad input, unknown resources', async () => {
    const a = await newOrg(api);

    const refusedEarly = [
      await api.call(`/channels/${a.orgId}`, { token: 'not-a-token' }),
      await api.call(`/channels/${a.orgId}?limit=0`, { token: a.token }),
      await api.call(`/chats/${a.orgId}/cht_unknown`, { token: a.token }),
      await api.call(`/webhooks/${a.orgId}/whk_unknown`, { method: 'DELETE', token: a.token }),
    ];
    const admitted = [];
    for (let index = 0; index < 6; index++) admitted.push((await api.call(`/channels/${a.orgId}`, a)).status);

    expect(refusedEarly.map((response) => response.status)).toEqual([401, 400, 404, 404]);
    expect(admitted).toEqual([200, 200, 200, 200, 200, 429]);
  });
});

describe('per-organisation network-call quota (CONTRACT §18)', () => {
  const api = useLocalStack({ NETWORK_CALL_RATE_LIMIT: '2/3600' });

  it('counts only the routes that call Meta: the third invite-link read is 429, reading the group still works', async () => {
    const token = await api.token('CRM_ADMIN');
    const { chatId } = await createdGroup(api, token);

    const unknown = await api.call(`/groups/${api.orgId}/cht_unknown/invite-link`, { token });
    const links = [];
    for (let index = 0; index < 3; index++) {
      links.push(await api.call(`/groups/${api.orgId}/${chatId}/invite-link`, { token }));
    }
    const group = await api.call(`/groups/${api.orgId}/${chatId}`, { token });

    expect(unknown.status).toBe(404);
    expect(links.map((response) => response.status)).toEqual([200, 200, 429]);
    expect(await links[2]!.json()).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(links[2]!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(group.status).toBe(200);
  });
});

describe('webhook redelivery limit (CONTRACT §18)', () => {
  const api = useLocalStack({ WEBHOOK_REDELIVER_RATE_LIMIT: '1/3600' });
  const receiver = useReceiver();

  it('redelivers once per WEBHOOK_REDELIVER_RATE_LIMIT window, then answers 429 RATE_LIMITED with Retry-After', async () => {
    const token = await api.token('CRM_ADMIN');
    const created = await api.call(`/webhooks/${api.orgId}`, {
      method: 'POST',
      token,
      json: { url: `${receiver.url}/redeliver` },
    });
    const { webhookId } = (await created.json()) as { webhookId: string };
    const reportId = `rpt_quota_${Date.now()}`;
    await deps().events.publish([
      {
        eventId: eventIdFor('report.completed', reportId),
        type: 'report.completed',
        organisationId: api.orgId,
        occurredAt: new Date().toISOString(),
        data: {
          report_id: reportId,
          report_type: 'CHAT',
          organisation_id: api.orgId,
          schedule_id: null,
          row_count: 1,
          truncatedCells: 0,
        },
      },
    ]);
    const deliveryId = await eventually(async () => {
      const page = (await (await api.call(`/webhooks/${api.orgId}/${webhookId}/deliveries`, { token })).json()) as {
        deliveries: { deliveryId: string; status: string }[];
      };
      expect(page.deliveries[0]?.status).toBe('succeeded');
      return page.deliveries[0]!.deliveryId;
    });
    const redeliver = () =>
      api.call(`/webhooks/${api.orgId}/${webhookId}/deliveries/${deliveryId}/redeliver`, { method: 'POST', token });

    const first = await redeliver();
    await eventually(async () => {
      const page = (await (await api.call(`/webhooks/${api.orgId}/${webhookId}/deliveries`, { token })).json()) as {
        deliveries: { status: string }[];
      };
      expect(page.deliveries[0]?.status).toBe('succeeded');
    });
    const second = await redeliver();

    expect(first.status).toBe(202);
    expect(second.status).toBe(429);
    expect(await second.json()).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(receiver.requestsTo('/redeliver')).toHaveLength(2);
  });
});
