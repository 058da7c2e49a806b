import { beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '#shared/openapi/document';
import { eventually } from '#test/support/eventually';
import { OpenApiValidator } from '#test/support/openapi-validator';
import { useReceiver } from '#test/support/receiver';
import { client, localDeployment } from './target.ts';

describe('webhook subscriptions and deliveries', () => {
  const deployment = localDeployment();
  const { orgId } = deployment;
  const receiver = useReceiver();
  let admin: ReturnType<typeof client>;
  let webhookId: string;

  beforeAll(async () => {
    admin = client(await deployment.token('CRM_ADMIN'));
  });
  const subscription = () => ({ path: { orgId, webhookId } });

  it('creates, lists, updates and rotates a subscription', async () => {
    const created = await admin.POST('/api/wp-crm/webhooks/{orgId}', {
      params: { path: { orgId } },
      body: { url: `${receiver.url}/reports`, events: ['report.completed'] },
    });
    webhookId = created.data!.webhookId;

    const { data: listed } = await admin.GET('/api/wp-crm/webhooks/{orgId}', {
      params: { path: { orgId }, query: { limit: 100 } },
    });
    const updated = await admin.PATCH('/api/wp-crm/webhooks/{orgId}/{webhookId}', {
      params: subscription(),
      body: { events: ['report.completed', 'report.failed'], description: 'reports' },
    });
    const rotated = await admin.POST('/api/wp-crm/webhooks/{orgId}/{webhookId}/rotate-secret', {
      params: subscription(),
    });

    expect(created.response.status).toBe(201);
    expect(created.response.headers.get('location')).toBe(`/api/wp-crm/webhooks/${orgId}/${webhookId}`);
    expect(listed!.webhooks.map((webhook) => webhook.webhookId)).toContain(webhookId);
    expect(updated.response.status).toBe(200);
    expect(updated.data).toMatchObject({ events: ['report.completed', 'report.failed'] });
    expect(rotated.response.status).toBe(200);
    expect(rotated.data!.secret).toMatch(/^whsec_/);
  });

  it('delivers a report event, lists the delivery and redelivers it', async () => {
    // A type not requested in the last 5 minutes makes a new event, also when the suite runs again soon.
    const types = <const>[
      'GOAL',
      'BOOKING',
      'FOLLOW_UPS',
      'SURVEY_RESPONSES',
      'FLOW_RESPONSES',
      'CALL_LOG',
      'CONTACT',
      'CHAT',
    ];
    const statuses: number[] = [];
    for (const reportType of types) {
      const { response } = await admin.POST('/api/wp-crm/reports/{organisationId}', {
        params: { path: { organisationId: orgId } },
        body: { reportType },
      });
      statuses.push(response.status);
      if (response.status === 202) break;
    }
    expect(statuses.at(-1)).toBe(202);

    const delivery = await eventually(
      async () => {
        const { data } = await admin.GET('/api/wp-crm/webhooks/{orgId}/{webhookId}/deliveries', {
          params: subscription(),
        });
        const deliveries = data!.deliveries;
        expect(deliveries.map((item) => item.status)).toContain('succeeded');
        return deliveries.find((item) => item.status === 'succeeded')!;
      },
      { timeoutMs: 30_000 },
    );
    const path = { orgId, webhookId, deliveryId: delivery.deliveryId };
    const redelivered = await admin.POST('/api/wp-crm/webhooks/{orgId}/{webhookId}/deliveries/{deliveryId}/redeliver', {
      params: { path },
    });

    const attempts = await admin.GET('/api/wp-crm/webhooks/{orgId}/{webhookId}/deliveries/{deliveryId}/attempts', {
      params: { path },
    });

    expect(delivery.type).toBe('report.completed');
    expect(attempts.response.status).toBe(200);
    expect(attempts.data!.attempts[0]).toMatchObject({
      attempt: 1,
      statusCode: 200,
      error: null,
      responseBody: 'ok',
    });
    expect(redelivered.response.status).toBe(202);
    expect(redelivered.data).toEqual({ deliveryId: delivery.deliveryId, status: 'pending' });
    await eventually(() => expect(receiver.requestsTo('/reports').length).toBeGreaterThanOrEqual(2), {
      timeoutMs: 20_000,
    });
  });

  it('sends a test delivery of a subscribed type, listed among the deliveries (CONTRACT §20)', async () => {
    const tested = await admin.POST('/api/wp-crm/webhooks/{orgId}/{webhookId}/test', {
      params: subscription(),
      body: { type: 'report.failed' },
    });

    expect(tested.response.status).toBe(202);
    const { deliveryId, eventId } = tested.data!;
    const request = await eventually(
      () => {
        const found = receiver.requestsTo('/reports').find((candidate) => candidate.headers['webhook-id'] === eventId);
        expect(found).toBeDefined();
        return found!;
      },
      { timeoutMs: 20_000 },
    );
    expect(JSON.parse(request.body)).toMatchObject({ type: 'report.failed', organisation_id: orgId, test: true });
    // Every delivery so far (the report's and the test's) is what the document declares, to a strict validator.
    const validator = new OpenApiValidator(openApiDocument());
    for (const delivery of receiver.requestsTo('/reports')) expect(validator.validateDelivery(delivery)).toEqual([]);
    const { data } = await admin.GET('/api/wp-crm/webhooks/{orgId}/{webhookId}/deliveries', { params: subscription() });
    expect(data!.deliveries.map((delivery) => delivery.deliveryId)).toContain(deliveryId);
  });

  it('deletes the subscription', async () => {
    const deleted = await admin.DELETE('/api/wp-crm/webhooks/{orgId}/{webhookId}', { params: subscription() });
    const again = await admin.DELETE('/api/wp-crm/webhooks/{orgId}/{webhookId}', { params: subscription() });

    expect(deleted.response.status).toBe(204);
    expect(again.response.status).toBe(404);
    expect(again.error).toMatchObject({ code: 'WEBHOOK_NOT_FOUND' });
  });
});
