import { describe, expect, it } from 'vitest';
import { useLocalStack } from '#test/support/local-stack';

describe('GET /channels/:orgId', () => {
  const api = useLocalStack();

  it('lists the demo channels without network credentials', async () => {
    const token = await api.token('CRM_AGENT');

    const response = await api.call(`/channels/${api.orgId}`, { token });

    expect(response.status).toBe(200);
    const body = (await response.json()) as { channels: Record<string, unknown>[]; nextCursor: string | null };
    expect(body.channels.map((channel) => channel.type)).toEqual([
      'MESSAGING_OFFICIAL',
      'MESSAGING_UNOFFICIAL',
      'MESSAGING_OFFICIAL',
    ]);
    expect(Object.keys(body.channels[0]!).sort()).toEqual(
      [
        'channelId',
        'createdAt',
        'groupsEligible',
        'inviteTemplate',
        'name',
        'officialBusinessAccount',
        'phoneNumber',
        'type',
      ].sort(),
    );
    // A channel that names no invite template sends Meta's own (CONTRACT §16).
    expect(body.channels[0]!.inviteTemplate).toEqual({ name: 'group_invite_link', language: 'en_US' });
    expect(body.nextCursor).toBeNull();
  });
});
