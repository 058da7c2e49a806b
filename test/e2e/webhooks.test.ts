import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually';
import { useReceiver } from '#test/support/receiver';
import { call, localDeployment } from './target.ts';

interface Delivery {
  deliveryId: string;
  status: string;
  type: string;
}

describe('webhook subscriptions and deliveries', () => {
  const deployment = localDeployment();
  const { orgId } = deployment;
  const receiver = useReceiver();
  let admin: string;
  let webhookId: string;

  beforeAll(async () => {
    admin = await deployment.token('CRM_ADMIN');
  });

  it('creates, lists, updates and rotates a subscription', async () => {
    const created = await call(`/webhooks/${orgId}`, {
      method: 'POST',
      token: admin,
      json: { url: `${receiver.url}/reports`, events: ['report.completed'] },
    });
    webhookId = ((await created.json()) as { webhookId: string }).webhookId;

    const listed = (await (await call(`/webhooks/${orgId}`, { token: admin })).json()) as {
      webhooks: { webhookId: string }[];
    };
    const updated = await call(`/webhooks/${orgId}/${webhookId}`, {
      method: 'PATCH',
      token: admin,
      json: { events: ['report.completed', 'report.failed'], description: 'reports' },
    });
    const rotated = await call(`/webhooks/${orgId}/${webhookId}/rotate-secret`, { method: 'POST', token: admin });

    expect(created.status).toBe(201);
    expect(listed.webhooks.map((webhook) => webhook.webhookId)).toContain(webhookId);
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({ events: ['report.completed', 'report.failed'] });
    expect(rotated.status).toBe(200);
    expect(((await rotated.json()) as { secret: string }).secret).toMatch(/^whsec_/);
  });

  it('delivers a report event, lists the delivery and redelivers it', async () => {
    // A type not requested in the last 5 minutes makes a new event, also when the suite runs again soon.
    const types = [
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
      const response = await call(`/reports/${orgId}`, { method: 'POST', token: admin, json: { reportType } });
      statuses.push(response.status);
      if (response.status === 202) break;
    }
    expect(statuses.at(-1)).toBe(202);

    const delivery = await eventually(
      async () => {
        const { deliveries } = (await (
          await call(`/webhooks/${orgId}/${webhookId}/deliveries`, { token: admin })
        ).json()) as { deliveries: Delivery[] };
        expect(deliveries.map((item) => item.status)).toContain('succeeded');
        return deliveries.find((item) => item.status === 'succeeded')!;
      },
      { timeoutMs: 30_000 },
    );
    const redelivered = await call(`/webhooks/${orgId}/${webhookId}/deliveries/${delivery.deliveryId}/redeliver`, {
      method: 'POST',
      token: admin,
    });

    const attempts = await call(`/webhooks/${orgId}/${webhookId}/deliveries/${delivery.deliveryId}/attempts`, {
      token: admin,
    });

    expect(delivery.type).toBe('report.completed');
    expect(attempts.status).toBe(200);
    expect(((await attempts.json()) as { attempts: unknown[] }).attempts[0]).toMatchObject({
      attempt: 1,
      statusCode: 200,
      error: null,
      responseBody: 'ok',
    });
    expect(redelivered.status).toBe(202);
    await eventually(() => expect(receiver.requestsTo('/reports').length).toBeGreaterThanOrEqual(2), {
      timeoutMs: 20_000,
    });
  });

  it('deletes the subscription', async () => {
    const deleted = await call(`/webhooks/${orgId}/${webhookId}`, { method: 'DELETE', token: admin });
    const again = await call(`/webhooks/${orgId}/${webhookId}`, { method: 'DELETE', token: admin });

    expect(deleted.status).toBe(204);
    expect(again.status).toBe(404);
  });
});
