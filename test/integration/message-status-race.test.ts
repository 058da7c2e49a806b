import { describe, expect, it } from 'vitest';
import { DynamoChatStore } from '#shared/adapters/dynamodb/chat-store';
import { DynamoEventOutbox } from '#shared/adapters/dynamodb/event-outbox';
import { DynamoIdentityStore } from '#shared/adapters/dynamodb/identity-store';
import { DynamoOrgAdminStore } from '#shared/adapters/dynamodb/org-admin-store';
import { SecretsManagerChannelCredentials } from '#shared/adapters/keys/channel-credentials';
import { loadConfig } from '#shared/config/env';
import { deliverMessage } from '#shared/domain/chats/deliver-message';
import { applyStatus, reportedFor } from '#shared/domain/chats/network-updates';
import { createChannel, createOrg } from '#shared/domain/orgs/administer';
import type { DomainEvent } from '#shared/ports/event-publisher';
import { ulidIds } from '#shared/ports/ids';
import { useDynamo } from '#test/support/dynamo';
import { FakeNetwork } from '#test/support/fake-network';

const table = useDynamo();

/**
 * Meta may notify a message's statuses before the sender has stored the id Meta answered with (the notification
 * races the answer). Seen with many organisations on one stack: statuses were dropped as "unknown message", and the
 * message stayed `sent` with no `message.status` ever published.
 */
describe('statuses that arrive before the sender links the message id', () => {
  async function harness(early: (wamid: string) => Promise<void>) {
    const published: DomainEvent[] = [];
    const network = new FakeNetwork();
    const chats = new DynamoChatStore(table.db, table.tableName);
    const deps = {
      config: loadConfig({}),
      clock: { now: () => new Date() },
      ids: ulidIds(),
      identity: new DynamoIdentityStore(table.db, table.tableName),
      chats,
      outbox: new DynamoEventOutbox(table.db, table.tableName),
      events: { publish: async (events: DomainEvent[]) => void published.push(...events) },
      network,
      channelCredentials: new SecretsManagerChannelCredentials(
        () => {
          throw new Error('no secrets in tests');
        },
        { workStatus: async () => 'active' as const },
      ),
    };
    network.sendText = async () => {
      const networkMessageId = `wamid.${network.prefix}`;
      await early(networkMessageId);
      return { networkMessageId };
    };
    const { orgId } = await createOrg(deps, { name: 'Org' });
    const { channelId } = await createChannel(deps, {
      orgId,
      name: 'WA',
      type: 'MESSAGING_OFFICIAL',
      phoneNumber: '+4915100000001',
      officialBusinessAccount: true,
      phoneNumberId: `race-${orgId}`,
      accessToken: 'token',
    });
    const now = new Date().toISOString();
    const chatId = `cht_${network.prefix}`;
    await chats.createChat({
      chatId,
      orgId,
      name: 'Team',
      chatType: 'GROUP',
      channelId,
      externalChatId: `${network.prefix}-G1`,
      isArchived: false,
      isResolved: false,
      isHighPriority: false,
      autopilot: false,
      assignedUserIds: [],
      assignedTeamIds: [],
      contactIds: [],
      stateMachineIds: [],
      currentStateIds: [],
      labelIds: [],
      externalItems: [],
      createdAt: now,
      updatedAt: now,
    });
    const messageId = `msg_${network.prefix}`;
    await chats.createMessage({
      messageId,
      chatId,
      orgId,
      direction: 'OUTBOUND',
      from: 'CRM_BOT',
      text: 'Hello',
      status: 'queued',
      createdAt: now,
    });
    return { deps, published, job: { orgId, chatId, messageId }, chats, channelId };
  }

  const statusEvents = (published: DomainEvent[]) =>
    published
      .filter((event) => event.type === 'message.status')
      .map((event) => (event.data as { status: string }).status)
      .sort();

  it('applies sent and delivered that came before the link, and publishes each once', async () => {
    let deps!: Awaited<ReturnType<typeof harness>>['deps'];
    let reporter!: ReturnType<typeof reportedFor>;
    const h = await harness(async (wamid) => {
      await applyStatus(deps, { id: wamid, status: 'sent', timestamp: 1764000000 }, reporter);
      await applyStatus(deps, { id: wamid, status: 'delivered', timestamp: 1764000001 }, reporter);
    });
    deps = h.deps;
    reporter = reportedFor(h.deps.identity, `race-${h.job.orgId}`);

    await deliverMessage(h.deps, h.job, 1);

    expect((await h.chats.getMessage(h.job.orgId, h.job.chatId, h.job.messageId))?.status).toBe('delivered');
    expect(statusEvents(h.published)).toEqual(['delivered', 'sent']);
  });

  it('never lets the sender move a message back from read to sent, and publishes sent and read once each', async () => {
    let deps!: Awaited<ReturnType<typeof harness>>['deps'];
    let reporter!: ReturnType<typeof reportedFor>;
    const h = await harness(async (wamid) => {
      await applyStatus(deps, { id: wamid, status: 'read', timestamp: 1764000002 }, reporter);
    });
    deps = h.deps;
    reporter = reportedFor(h.deps.identity, `race-${h.job.orgId}`);

    await deliverMessage(h.deps, h.job, 1);
    await deliverMessage(h.deps, h.job, 2);

    expect((await h.chats.getMessage(h.job.orgId, h.job.chatId, h.job.messageId))?.status).toBe('read');
    expect(statusEvents(h.published)).toEqual(['read', 'sent']);
  });

  it('fails a message queued before an operator disabled its channel, without sending it (CONTRACT §17)', async () => {
    let sends = 0;
    const h = await harness(async () => {
      sends += 1;
    });
    const now = new Date().toISOString();
    await new DynamoOrgAdminStore(table.db, table.tableName).updateChannel(
      h.job.orgId,
      h.channelId,
      { disabledAt: now },
      now,
    );

    await deliverMessage(h.deps, h.job, 1);

    expect(sends).toBe(0);
    expect(await h.chats.getMessage(h.job.orgId, h.job.chatId, h.job.messageId)).toMatchObject({
      status: 'failed',
      error: { code: 'CHANNEL_DISABLED' },
    });
    expect(h.published.map((event) => event.data)).toEqual([
      expect.objectContaining({ status: 'failed', error: expect.objectContaining({ code: 'CHANNEL_DISABLED' }) }),
    ]);
  });
});
