import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { deps } from '#shared/config/deps';
import { createCredential, createOrg } from '#shared/domain/orgs/administer';
import { eventIdFor } from '#shared/events/domain-event';
import { eventually, useLocalStack } from '#test/support/local-stack';
import { useReceiver } from '#test/support/receiver';

let sequence = 0;

/** Publishes a report.completed event for `orgId` on the bus, as the report worker does. */
async function publishEvent(orgId: string) {
  const reportId = `rpt_test_${++sequence}_${Date.now()}`;
  const eventId = eventIdFor('report.completed', reportId);
  await deps().events.publish([
    {
      eventId,
      type: 'report.completed',
      organisationId: orgId,
      occurredAt: new Date().toISOString(),
      data: {
        report_id: reportId,
        report_type: 'CHAT',
        organisation_id: orgId,
        schedule_id: null,
        row_count: 3,
        truncatedCells: 0,
      },
    },
  ]);
  return eventId;
}

describe('outbound webhooks', () => {
  const api = useLocalStack({ WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1' });
  /**
   * Dispatcher messages being processed or due within 5 s: the work still to do. Deliveries of earlier tests' failing subscriptions
   * that wait in the slow lane (CONTRACT §18: once a minute) stay queued further out, and are not.
   */
  const dueDispatches = () =>
    api.stack.queues
      .get('webhook-deliveries')!
      .held()
      .filter((message) => message.receiveCount > 0 || message.visibleAt <= Date.now() + 5_000).length;
  const receiver = useReceiver();

  async function subscribe(path: string, body: Record<string, unknown> = {}, orgId = api.orgId, token?: string) {
    const response = await api.call(`/webhooks/${orgId}`, {
      method: 'POST',
      token: token ?? (await api.token('CRM_ADMIN')),
      json: { url: `${receiver.url}${path}`, ...body },
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { webhookId: string; secret: string; events: string[]; status: string };
  }

  it('signs deliveries so that the standardwebhooks library verifies them (J-1)', async () => {
    const subscription = await subscribe('/signed', { description: 'ops' });

    const eventId = await publishEvent(api.orgId);
    const [request] = await eventually(() => {
      const requests = receiver.requestsTo('/signed');
      expect(requests).toHaveLength(1);
      return requests;
    });

    expect(subscription.secret).toMatch(/^whsec_/);
    expect(subscription.events).toEqual(['*']);
    expect(request!.headers['webhook-id']).toBe(eventId);
    const payload = new Webhook(subscription.secret).verify(
      request!.body,
      request!.headers as Record<string, string>,
    ) as Record<string, unknown>;
    expect(payload).toMatchObject({ type: 'report.completed', organisation_id: api.orgId, row_count: 3 });
    expect(payload.event_id).toBeUndefined();
  });

  it('never shows the secret again in listings', async () => {
    const listed = await api.call(`/webhooks/${api.orgId}`, { token: await api.token('ACCOUNT_OWNER') });

    const body = await listed.text();
    expect(listed.status).toBe(200);
    expect(body).not.toContain('whsec_');
  });

  it('retries 500, 500, 200 with the same webhook-id and new timestamps, then succeeds (J-2)', async () => {
    const { webhookId } = await subscribe('/flaky');
    receiver.scripts.set('/flaky', [500, 500]);

    await publishEvent(api.orgId);
    const requests = await eventually(
      () => {
        const received = receiver.requestsTo('/flaky');
        expect(received).toHaveLength(3);
        return received;
      },
      { timeoutMs: 20_000 },
    );

    expect(new Set(requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
    expect(new Set(requests.map((request) => request.body)).size).toBe(1);
    const token = await api.token('CRM_ADMIN');
    const deliveries = await eventually(async () => {
      const page = (await (await api.call(`/webhooks/${api.orgId}/${webhookId}/deliveries`, { token })).json()) as {
        deliveries: { status: string; attempts: number; lastStatusCode: number }[];
      };
      expect(page.deliveries[0]?.status).toBe('succeeded');
      return page.deliveries;
    });
    expect(deliveries[0]).toMatchObject({ attempts: 3, lastStatusCode: 200 });
  });

  it("lists a delivery's attempts with status, duration, error and the first 1 KiB of each answer", async () => {
    const { webhookId } = await subscribe('/verbose');
    const long = `${'é'.repeat(600)}tail`;
    receiver.scripts.set('/verbose', [
      { status: 500, body: long },
      { status: 200, body: 'thanks' },
    ]);
    const token = await api.token('CRM_ADMIN');

    await publishEvent(api.orgId);
    const delivery = await eventually(
      async () => {
        const page = (await (await api.call(`/webhooks/${api.orgId}/${webhookId}/deliveries`, { token })).json()) as {
          deliveries: { deliveryId: string; status: string }[];
        };
        expect(page.deliveries[0]?.status).toBe('succeeded');
        return page.deliveries[0]!;
      },
      { timeoutMs: 20_000 },
    );
    const response = await api.call(`/webhooks/${api.orgId}/${webhookId}/deliveries/${delivery.deliveryId}/attempts`, {
      token,
    });
    const unknownDelivery = await api.call(`/webhooks/${api.orgId}/${webhookId}/deliveries/dlv_nope/attempts`, {
      token,
    });
    const unknownWebhook = await api.call(
      `/webhooks/${api.orgId}/whk_nope/deliveries/${delivery.deliveryId}/attempts`,
      { token },
    );
    const agent = await api.call(`/webhooks/${api.orgId}/${webhookId}/deliveries/${delivery.deliveryId}/attempts`, {
      token: await api.token('CRM_AGENT'),
    });

    expect(response.status).toBe(200);
    const { attempts } = (await response.json()) as {
      attempts: {
        attempt: number;
        at: string;
        statusCode: number | null;
        durationMs: number;
        error: string | null;
        responseBody: string | null;
      }[];
    };
    expect(attempts).toEqual([
      {
        attempt: 1,
        at: expect.any(String),
        statusCode: 500,
        durationMs: expect.any(Number),
        error: 'http_500',
        responseBody: expect.any(String),
      },
      {
        attempt: 2,
        at: expect.any(String),
        statusCode: 200,
        durationMs: expect.any(Number),
        error: null,
        responseBody: 'thanks',
      },
    ]);
    expect(Buffer.byteLength(attempts[0]!.responseBody!)).toBeLessThanOrEqual(1024 + 2);
    expect(attempts[0]!.responseBody!.startsWith('é'.repeat(512))).toBe(true);
    expect(attempts[0]!.responseBody).not.toContain('tail');
    expect(attempts[0]!.at < attempts[1]!.at).toBe(true);
    expect([unknownDelivery.status, unknownWebhook.status, agent.status]).toEqual([404, 404, 403]);
    expect(((await unknownDelivery.json()) as { code: string }).code).toBe('DELIVERY_NOT_FOUND');
    expect(((await unknownWebhook.json()) as { code: string }).code).toBe('WEBHOOK_NOT_FOUND');
  });

  it('records an attempt that got no answer with its error and no status code', async () => {
    const { webhookId } = await subscribe('/down');
    const token = await api.token('CRM_ADMIN');
    await api.call(`/webhooks/${api.orgId}/${webhookId}`, {
      method: 'PATCH',
      token,
      json: { url: 'http://127.0.0.1:1/refused' },
    });

    await publishEvent(api.orgId);
    const attempts = await eventually(async () => {
      const page = (await (await api.call(`/webhooks/${api.orgId}/${webhookId}/deliveries`, { token })).json()) as {
        deliveries: { deliveryId: string; attempts: number }[];
      };
      expect(page.deliveries[0]?.attempts).toBeGreaterThanOrEqual(1);
      const answer = await api.call(
        `/webhooks/${api.orgId}/${webhookId}/deliveries/${page.deliveries[0]!.deliveryId}/attempts`,
        { token },
      );
      return ((await answer.json()) as { attempts: Record<string, unknown>[] }).attempts;
    });

    expect(attempts[0]).toMatchObject({
      attempt: 1,
      statusCode: null,
      error: 'connection_refused',
      responseBody: null,
    });
  });

  it('disables the subscription on 410 and sends nothing more (J-3)', async () => {
    const { webhookId } = await subscribe('/gone');
    receiver.scripts.set('/gone', [410]);

    await publishEvent(api.orgId);
    await eventually(() => expect(receiver.requestsTo('/gone')).toHaveLength(1));
    const token = await api.token('CRM_ADMIN');
    await eventually(async () => {
      const list = (await (await api.call(`/webhooks/${api.orgId}`, { token })).json()) as {
        webhooks: { webhookId: string; status: string; disabledReason?: string }[];
      };
      expect(list.webhooks.find((webhook) => webhook.webhookId === webhookId)).toMatchObject({
        status: 'disabled',
        disabledReason: 'GONE',
      });
    });
    await publishEvent(api.orgId);
    const reenabled = await api.call(`/webhooks/${api.orgId}/${webhookId}`, {
      method: 'PATCH',
      token,
      json: { status: 'active' },
    });

    expect(receiver.requestsTo('/gone')).toHaveLength(1);
    expect(await reenabled.json()).toMatchObject({ status: 'active' });
  });

  it('signs with both secrets for a day after a rotation', async () => {
    const { webhookId, secret: oldSecret } = await subscribe('/rotated');
    const token = await api.token('CRM_ADMIN');
    const rotated = (await (
      await api.call(`/webhooks/${api.orgId}/${webhookId}/rotate-secret`, { method: 'POST', token })
    ).json()) as {
      secret: string;
    };

    await publishEvent(api.orgId);
    const [request] = await eventually(() => {
      const requests = receiver.requestsTo('/rotated');
      expect(requests).toHaveLength(1);
      return requests;
    });

    const headers = request!.headers as Record<string, string>;
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(request!.body, headers)).not.toThrow();
    expect(() => new Webhook(rotated.secret).verify(request!.body, headers)).not.toThrow();
  });

  it('redelivers a finished delivery with the same webhook-id, and refuses while one is in progress', async () => {
    const { webhookId } = await subscribe('/again');
    const token = await api.token('CRM_ADMIN');
    const eventId = await publishEvent(api.orgId);
    await eventually(() => expect(receiver.requestsTo('/again')).toHaveLength(1));
    const [delivery] = await eventually(async () => {
      const page = (await (await api.call(`/webhooks/${api.orgId}/${webhookId}/deliveries`, { token })).json()) as {
        deliveries: { deliveryId: string; status: string }[];
      };
      expect(page.deliveries[0]?.status).toBe('succeeded');
      return page.deliveries;
    });

    const first = await api.call(`/webhooks/${api.orgId}/${webhookId}/deliveries/${delivery!.deliveryId}/redeliver`, {
      method: 'POST',
      token,
    });
    const second = await api.call(`/webhooks/${api.orgId}/${webhookId}/deliveries/${delivery!.deliveryId}/redeliver`, {
      method: 'POST',
      token,
    });
    await eventually(() => expect(receiver.requestsTo('/again')).toHaveLength(2));
    const unknown = await api.call(`/webhooks/${api.orgId}/${webhookId}/deliveries/dlv_nope/redeliver`, {
      method: 'POST',
      token,
    });

    expect(first.status).toBe(202);
    expect(await first.json()).toEqual({ deliveryId: delivery!.deliveryId, status: 'pending' });
    expect([202, 409]).toContain(second.status);
    expect(receiver.requestsTo('/again').map((request) => request.headers['webhook-id'])).toEqual([eventId, eventId]);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { code: string }).code).toBe('DELIVERY_NOT_FOUND');
  });

  it('stops delivering to a deleted subscription', async () => {
    const { webhookId } = await subscribe('/deleted');
    const token = await api.token('CRM_ADMIN');

    const deleted = await api.call(`/webhooks/${api.orgId}/${webhookId}`, { method: 'DELETE', token });
    const again = await api.call(`/webhooks/${api.orgId}/${webhookId}`, { method: 'DELETE', token });
    await publishEvent(api.orgId);
    await publishEvent(api.orgId);
    await eventually(() => expect(dueDispatches()).toBe(0));

    expect(deleted.status).toBe(204);
    expect(again.status).toBe(404);
    expect(receiver.requestsTo('/deleted')).toHaveLength(0);
  });

  it("delivers an organisation's events only to its own subscriptions (J-7)", async () => {
    const { orgId: otherOrg } = await createOrg(deps(), { name: 'Org B' });
    const { clientId, clientSecret } = await createCredential(deps(), { orgId: otherOrg, roles: ['ACCOUNT_OWNER'] });
    const { accessToken } = (await (
      await api.call('/token', { method: 'POST', json: { clientId, clientSecret } })
    ).json()) as {
      accessToken: string;
    };
    await subscribe('/org-a-only', { events: ['report.completed'] });
    const orgB = await subscribe('/org-b-only', { events: ['report.completed'] }, otherOrg, accessToken);

    await publishEvent(otherOrg);
    const [request] = await eventually(() => {
      const requests = receiver.requestsTo('/org-b-only');
      expect(requests).toHaveLength(1);
      return requests;
    });
    await eventually(() => expect(dueDispatches()).toBe(0));

    expect(receiver.requestsTo('/org-a-only')).toHaveLength(0);
    expect(() =>
      new Webhook(orgB.secret).verify(request!.body, request!.headers as Record<string, string>),
    ).not.toThrow();
  });

  it('refuses unknown events and properties with 400, and agents with 403', async () => {
    const token = await api.token('CRM_ADMIN');

    const badEvent = await api.call(`/webhooks/${api.orgId}`, {
      method: 'POST',
      token,
      json: { url: `${receiver.url}/x`, events: ['chat.created'] },
    });
    const extra = await api.call(`/webhooks/${api.orgId}`, {
      method: 'POST',
      token,
      json: { url: `${receiver.url}/x`, secret: 'mine' },
    });
    const agent = await api.call(`/webhooks/${api.orgId}`, { token: await api.token('CRM_AGENT') });

    const mixedStar = await api.call(`/webhooks/${api.orgId}`, {
      method: 'POST',
      token,
      json: { url: `${receiver.url}/x`, events: ['*', 'group.created'] },
    });

    expect(badEvent.status).toBe(400);
    expect(extra.status).toBe(400);
    expect(mixedStar.status).toBe(400);
    expect(agent.status).toBe(403);
  });

  it('delivers every type, new ones included, to "*" and to subscriptions stored with the first four types', async () => {
    const now = new Date().toISOString();
    const star = await subscribe('/star', { events: ['*'] });
    const subset = await subscribe('/subset', { events: ['group.created'] });
    await deps().webhooks.createSubscription(
      {
        webhookId: 'whk_legacy_all',
        orgId: api.orgId,
        url: `${receiver.url}/legacy`,
        events: ['group.created', 'group.creation_failed', 'report.completed', 'report.failed'],
        status: 'active',
        secrets: [
          {
            sealed: await deps().secretBox.seal(star.secret, { orgId: api.orgId, webhookId: 'whk_legacy_all' }),
            createdAt: now,
          },
        ],
        createdAt: now,
        updatedAt: now,
      },
      20,
    );
    const eventId = eventIdFor('group.deleted', `legacy-${Date.now()}`);

    await deps().events.publish([
      {
        eventId,
        type: 'group.deleted',
        organisationId: api.orgId,
        occurredAt: now,
        data: { organisation_id: api.orgId, chat_id: 'cht_gone' },
      },
    ]);
    await eventually(() => {
      expect(receiver.requestsTo('/star').map((request) => request.headers['webhook-id'])).toContain(eventId);
      expect(receiver.requestsTo('/legacy').map((request) => request.headers['webhook-id'])).toContain(eventId);
    });
    await eventually(() => expect(dueDispatches()).toBe(0));
    const listed = (await (
      await api.call(`/webhooks/${api.orgId}?limit=100`, { token: await api.token('CRM_ADMIN') })
    ).json()) as { webhooks: { webhookId: string; events: string[] }[] };

    expect(star.events).toEqual(['*']);
    expect(subset.events).toEqual(['group.created']);
    expect(receiver.requestsTo('/subset')).toHaveLength(0);
    expect(listed.webhooks.find((webhook) => webhook.webhookId === 'whk_legacy_all')?.events).toEqual(['*']);
  });
});

describe('webhook URL policy in production mode', () => {
  const api = useLocalStack({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'https://169.254.169.254/latest/meta-data/',
    'https://127.0.0.1/',
    'https://[::1]/',
    'https://10.0.0.1/',
    'https://0x7f000001/',
    'https://2130706433/',
    'https://017700000001/',
    'https://[::ffff:127.0.0.1]/',
    'https://localhost./',
    'https://[fd00:ec2::254]/',
    'https://100.64.0.1/',
    'file:///etc/passwd',
    'gopher://x',
    'http://example.com/hook',
  ])('refuses %s with 422 WEBHOOK_URL_NOT_ALLOWED (J-5)', async (url) => {
    const response = await api.call(`/webhooks/${api.orgId}`, {
      method: 'POST',
      token: await api.token('ACCOUNT_OWNER'),
      json: { url },
    });

    expect(response.status).toBe(422);
    expect(((await response.json()) as { code: string }).code).toBe('WEBHOOK_URL_NOT_ALLOWED');
  });
});
