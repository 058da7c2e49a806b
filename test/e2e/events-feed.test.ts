import { beforeAll, describe, expect, it } from 'vitest';
import { events, type FeedEvent } from '#clients/typescript/src/index';
import { eventually } from '#test/support/eventually';
import { client, localDeployment } from './target.ts';

/** Walks the feed from `iterator` until done; returns its events and where to go on. */
async function walk(reader: ReturnType<typeof client>, orgId: string, iterator?: string, limit = 7) {
  const feed = events(reader, orgId, { iterator, limit });
  const seen: FeedEvent[] = [];
  for await (const event of feed) seen.push(event);
  return { seen, iterator: feed.iterator };
}

// CONTRACT §20 through the deployment: members write into one group at once while a reader follows the feed.
describe('the events feed under concurrent writers', () => {
  const deployment = localDeployment();
  const { orgId } = deployment;
  let bot: ReturnType<typeof client>;
  let chatId: string;
  let groupId: string;
  const members = ['4915100000081', '4915100000082', '4915100000083', '4915100000084'];

  beforeAll(async () => {
    bot = client(await deployment.token('CRM_BOT'));
    const accepted = await bot.POST('/api/wp-crm/groups/{orgId}', {
      params: { path: { orgId }, header: { 'Idempotency-Key': `e2e-feed-${Date.now()}` } },
      body: { channelId: deployment.demo.channels.eligible, subject: 'E2E feed', description: 'feed writers' },
    });
    const { requestId } = accepted.data!;
    chatId = await eventually(
      async () => {
        const { data } = await bot.GET('/api/wp-crm/groups/{orgId}/creation-status/{requestId}', {
          params: { path: { orgId, requestId } },
        });
        expect(data?.status).toBe('created');
        return data!.chatId!;
      },
      { timeoutMs: 30_000 },
    );
    const { data: chat } = await bot.GET('/api/wp-crm/chats/{orgId}/{chatId}', { params: { path: { orgId, chatId } } });
    groupId = chat!.externalChatId!;
    for (const waId of members) await deployment.simulator(`/groups/${groupId}/join`, { waId });
    await deployment.simulator('/flush', {});
  }, 60_000);

  it("gives a reader following the iterator each member's message exactly once, in the feed's one order, while they write at once", async () => {
    const start = await walk(bot, orgId, undefined, 100);
    const sent: string[] = [];
    let writing = true;
    const ledger: FeedEvent[] = [];
    const reading = (async () => {
      let iterator = start.iterator;
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const page = await walk(bot, orgId, iterator);
        ledger.push(...page.seen);
        iterator = page.iterator;
        const received = ledger.filter((event) => event.type === 'message.received');
        if (!writing && received.length >= sent.length) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    await Promise.all(
      members.map(async (from) => {
        for (let index = 0; index < 6; index += 1) {
          const { messageId } = await deployment.simulator<{ messageId: string }>(`/groups/${groupId}/messages`, {
            from,
            text: `feed ${from} ${index}`,
          });
          sent.push(messageId);
        }
      }),
    );
    await deployment.simulator('/flush', {});
    writing = false;
    await reading;
    const again = await walk(bot, orgId, start.iterator, 100);

    const ids = ledger.map((event) => event.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    const wamids = ledger
      .map((event) => event.data as { type: string; chat_id?: string; external_message_id?: string })
      .filter((data) => data.type === 'message.received' && data.chat_id === chatId)
      .map((data) => data.external_message_id);
    expect([...wamids].sort()).toEqual([...sent].sort());
    expect(again.seen.map((event) => event.eventId).slice(0, ids.length)).toEqual(ids);
  }, 120_000);

  it('refuses an unknown type with 400 and the agent role with 403', async () => {
    const agent = client(await deployment.token('CRM_AGENT'));

    const unknown = await bot.GET('/api/wp-crm/events/{orgId}', {
      params: { path: { orgId }, query: { types: 'group.nope' } },
    });
    const refused = await agent.GET('/api/wp-crm/events/{orgId}', { params: { path: { orgId } } });

    expect([unknown.response.status, refused.response.status]).toEqual([400, 403]);
    expect(unknown.error).toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});
