import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '#shared/openapi/document';
import { eventually, useLocalStack } from '#test/support/local-stack';
import { OpenApiValidator } from '#test/support/openapi-validator';
import { useReceiver } from '#test/support/receiver';

describe('test deliveries (CONTRACT §20)', () => {
  const api = useLocalStack({ WEBHOOK_REDELIVER_RATE_LIMIT: '3/3600' });
  const receiver = useReceiver();

  async function subscribe(path: string, events?: string[]) {
    const response = await api.call(`/webhooks/${api.orgId}`, {
      method: 'POST',
      token: await api.token('CRM_ADMIN'),
      json: { url: `${receiver.url}${path}`, ...(events ? { events } : {}) },
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { webhookId: string; secret: string };
  }

  it("delivers the type's documented example, signed, with this organisation, a fresh event id and test: true (declared by the document), listed among the deliveries and never published", async () => {
    const token = await api.token('CRM_ADMIN');
    const tested = await subscribe('/tested', ['report.failed', 'report.completed']);
    await subscribe('/bystander');
    const published = api.stack.bus.published.length;

    const first = await api.call(`/webhooks/${api.orgId}/${tested.webhookId}/test`, {
      method: 'POST',
      token,
      json: {},
    });
    const named = await api.call(`/webhooks/${api.orgId}/${tested.webhookId}/test`, {
      method: 'POST',
      token,
      json: { type: 'report.failed' },
    });

    expect(first.status).toBe(202);
    expect(named.status).toBe(202);
    const firstBody = (await first.json()) as { deliveryId: string; eventId: string };
    const namedBody = (await named.json()) as { deliveryId: string; eventId: string };
    expect(firstBody.eventId).toMatch(/^evt_/);
    expect(namedBody.eventId).not.toBe(firstBody.eventId);
    const requests = await eventually(() => {
      const got = receiver.received.filter((request) => request.path === '/tested');
      expect(got).toHaveLength(2);
      return got;
    });
    // What the document declares, to a strict validator (an undeclared property would be a violation).
    const validator = new OpenApiValidator(openApiDocument());
    for (const request of requests) expect(validator.validateDelivery(request)).toEqual([]);
    const bodies = requests.map((request) => {
      const payload = new Webhook(tested.secret).verify(request.body, request.headers as Record<string, string>);
      return { id: request.headers['webhook-id'], payload: payload as Record<string, unknown> };
    });
    // No type named: the first of the catalog the subscription takes.
    expect(bodies).toEqual(
      expect.arrayContaining([
        {
          id: firstBody.eventId,
          payload: expect.objectContaining({
            type: 'report.completed',
            organisation_id: api.orgId,
            test: true,
            report_type: 'CHAT',
          }),
        },
        {
          id: namedBody.eventId,
          payload: expect.objectContaining({ type: 'report.failed', organisation_id: api.orgId, test: true }),
        },
      ]),
    );
    const deliveries = (await (
      await api.call(`/webhooks/${api.orgId}/${tested.webhookId}/deliveries`, { token })
    ).json()) as { deliveries: { deliveryId: string; eventId: string; status: string }[] };
    expect(deliveries.deliveries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ deliveryId: firstBody.deliveryId, eventId: firstBody.eventId, status: 'succeeded' }),
        expect.objectContaining({ deliveryId: namedBody.deliveryId, eventId: namedBody.eventId }),
      ]),
    );
    // Never on the bus: the subscription to every type saw nothing.
    expect(api.stack.bus.published.length).toBe(published);
    expect(receiver.received.filter((request) => request.path === '/bystander')).toEqual([]);
  });

  it('refuses a type the subscription does not take (400 at /type), an unknown subscription (404), and past WEBHOOK_REDELIVER_RATE_LIMIT (429)', async () => {
    const token = await api.token('CRM_ADMIN');
    const { webhookId } = await subscribe('/narrow', ['group.created']);

    const unsubscribed = await api.call(`/webhooks/${api.orgId}/${webhookId}/test`, {
      method: 'POST',
      token,
      json: { type: 'report.failed' },
    });
    const unknownType = await api.call(`/webhooks/${api.orgId}/${webhookId}/test`, {
      method: 'POST',
      token,
      json: { type: 'group.exploded' },
    });
    const missing = await api.call(`/webhooks/${api.orgId}/whk_missing/test`, { method: 'POST', token, json: {} });

    expect(unsubscribed.status).toBe(400);
    expect(await unsubscribed.json()).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ pointer: '/type' }] });
    expect(unknownType.status).toBe(400);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'WEBHOOK_NOT_FOUND' });

    // The first test used two of the three; refusals above counted nothing.
    const third = await api.call(`/webhooks/${api.orgId}/${webhookId}/test`, { method: 'POST', token, json: {} });
    const fourth = await api.call(`/webhooks/${api.orgId}/${webhookId}/test`, { method: 'POST', token, json: {} });
    expect(third.status).toBe(202);
    expect(fourth.status).toBe(429);
    expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await fourth.json()).toMatchObject({ code: 'RATE_LIMITED' });
  });
});
