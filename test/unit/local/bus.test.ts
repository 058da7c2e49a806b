import { describe, expect, it } from 'vitest';
import { LocalBus } from '#infra/local/bus';
import { LocalQueue } from '#infra/local/queue';
import { BUS_RULES, valueAtEventPath } from '#shared/events/catalog';

describe('LocalBus', () => {
  it("sends each domain event to the dispatcher's queue with its organisation as the message group (CONTRACT §18)", () => {
    const queue = new LocalQueue('webhook-deliveries', { visibilityTimeoutSeconds: 60 });
    const bus = new LocalBus(new Map([['webhook-deliveries', queue]]), BUS_RULES);

    bus.put([
      { Source: 'wp-crm', DetailType: 'message.status', Detail: JSON.stringify({ organisation_id: 'org-a' }) },
      { Source: 'wp-crm', DetailType: 'report.completed', Detail: JSON.stringify({ organisation_id: 'org-b' }) },
    ]);

    const records = queue.receive(10);
    expect(records.map((record) => record.attributes.MessageGroupId)).toEqual(['org-a', 'org-b']);
    expect(
      queue
        .tenants()
        .map((tenant) => tenant.tenant)
        .sort(),
    ).toEqual(['org-a', 'org-b']);
  });
});

describe('valueAtEventPath', () => {
  const event = { detail: { organisation_id: 'org-a', count: 3, nested: { id: 'x' } } };

  it('reads a string at a dynamic path, as EventBridge does for SqsParameters.MessageGroupId', () => {
    expect(valueAtEventPath(event, '$.detail.organisation_id')).toBe('org-a');
    expect(valueAtEventPath(event, '$.detail.nested.id')).toBe('x');
  });

  it('gives a fixed value as it is, and nothing for a missing or non-string value', () => {
    expect(valueAtEventPath(event, 'fixed-group')).toBe('fixed-group');
    expect(valueAtEventPath(event, '$.detail.missing')).toBeUndefined();
    expect(valueAtEventPath(event, '$.detail.count')).toBeUndefined();
    expect(valueAtEventPath(event, '$.detail.organisation_id.deeper')).toBeUndefined();
  });
});
