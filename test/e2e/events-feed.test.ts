import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, type FeedEvent } from '#clients/typescript/src/index';
import { REPORT_TYPES } from '#shared/domain/reports/records';
import { killCliProcesses, wpcrm } from '#test/support/cli';
import { eventually } from '#test/support/eventually';
import { call, client, dataDir, localDeployment } from './target.ts';

/** Walks the feed from `iterator` until done; returns its events and where to go on. */
async function walk(reader: ReturnType<typeof client>, orgId: string, iterator?: string, limit = 7) {
  const feed = events(reader, orgId, { iterator, limit });
  const seen: FeedEvent[] = [];
  for await (const event of feed) seen.push(event);
  return { seen, iterator: feed.iterator };
}

// CONTRACT §20 through the deployment: members write into one group at once, and a second organisation's reports
// complete meanwhile, while a reader follows the first organisation's feed.
describe('the events feed under concurrent writers', () => {
  const deployment = localDeployment();
  const { orgId } = deployment;
  let bot: ReturnType<typeof client>;
  let chatId: string;
  let groupId: string;
  const members = ['4915100000081', '4915100000082', '4915100000083', '4915100000084'];
  // A second organisation writes at the same time (a report of each type, each publishing report.completed).
  let otherOrgId: string;
  let otherAdmin: ReturnType<typeof client>;
  afterAll(() => killCliProcesses());

  beforeAll(async () => {
    const run = (...args: string[]) => wpcrm(args, dataDir, 120_000);
    otherOrgId = JSON.parse((await run('org', 'create', '--name', 'Feed neighbour')).stdout).orgId;
    const { clientId, clientSecret } = JSON.parse(
      (await run('credential', 'create', '--org', otherOrgId, '--roles', 'CRM_ADMIN')).stdout,
    );
    const issued = await call('/token', { method: 'POST', json: { clientId, clientSecret } });
    expect(issued.status).toBe(200);
    otherAdmin = client(((await issued.json()) as { accessToken: string }).accessToken);
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
  }, 300_000);

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
        // Only this chat's: other test files write into the demo organisation at the same time.
        const received = ledger.filter(
          (event) => event.type === 'message.received' && (event.data as { chat_id?: string }).chat_id === chatId,
        );
        if (!writing && received.length >= sent.length) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    const requested: string[] = [];
    const neighbour = Promise.all(
      REPORT_TYPES.map(async (reportType) => {
        const { data, response } = await otherAdmin.POST('/api/wp-crm/reports/{organisationId}', {
          params: { path: { organisationId: otherOrgId } },
          body: { reportType },
        });
        expect(response.status).toBe(202);
        requested.push(data!.reportId);
      }),
    );
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
    await neighbour;
    await deployment.simulator('/flush', {});
    writing = false;
    await reading;
    const again = await walk(bot, orgId, start.iterator, 100);
    // The neighbour's reports each appear once in its own feed, and never in the first organisation's.
    const theirs = await eventually(
      async () => {
        const { seen } = await walk(otherAdmin, otherOrgId, undefined, 100);
        const completed = seen.filter((event) => event.type === 'report.completed');
        expect(completed).toHaveLength(REPORT_TYPES.length);
        return seen;
      },
      { timeoutMs: 60_000 },
    );
    const theirReports = theirs.map((event) => (event.data as { report_id?: string }).report_id);
    expect([...theirReports].sort()).toEqual([...requested].sort());
    expect(theirs.every((event) => (event.data as { organisation_id: string }).organisation_id === otherOrgId)).toBe(
      true,
    );
    expect(ledger.every((event) => (event.data as { organisation_id: string }).organisation_id === orgId)).toBe(true);
    const theirIds = new Set(theirs.map((event) => event.eventId));
    expect(ledger.filter((event) => theirIds.has(event.eventId))).toEqual([]);

    const ids = ledger.map((event) => event.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    const wamids = ledger
      .map((event) => event.data as { type: string; chat_id?: string; external_message_id?: string })
      .filter((data) => data.type === 'message.received' && data.chat_id === chatId)
      .map((data) => data.external_message_id);
    expect([...wamids].sort()).toEqual([...sent].sort());
    expect(again.seen.map((event) => event.eventId).slice(0, ids.length)).toEqual(ids);
  }, 180_000);

  it('refuses an unknown type or an iterator used with other types with 400, and the agent role with 403', async () => {
    const agent = client(await deployment.token('CRM_AGENT'));
    const typed = await bot.GET('/api/wp-crm/events/{orgId}', {
      params: { path: { orgId }, query: { types: 'group.deleted', limit: 1 } },
    });

    const unknown = await bot.GET('/api/wp-crm/events/{orgId}', {
      params: { path: { orgId }, query: { types: 'group.nope' } },
    });
    // Opening it tries the cursor key a rotation replaced (AWSPREVIOUS), under the function's role.
    const rebound = await bot.GET('/api/wp-crm/events/{orgId}', {
      params: { path: { orgId }, query: { iterator: typed.data!.iterator } },
    });
    const refused = await agent.GET('/api/wp-crm/events/{orgId}', { params: { path: { orgId } } });

    expect(typed.response.headers.get('cache-control')).toBe('no-store');
    expect([unknown.response.status, rebound.response.status, refused.response.status]).toEqual([400, 400, 403]);
    expect(unknown.error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(rebound.error).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ pointer: '#/query/iterator' }] });
  });
});
