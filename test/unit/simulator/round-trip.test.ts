import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GRAPH_VERSION, WhatsAppSimulator } from '#infra/local/simulator/server';
import { GraphMessagingNetwork } from '#shared/adapters/graph/graph-network';
import { DEFAULT_INVITE_TEMPLATE } from '#shared/domain/orgs/model';
import { NetworkError } from '#shared/ports/messaging-network';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/whatsapp';

const PHONE = '100000000000001';
const channel = { phoneNumberId: PHONE, accessToken: 'local-simulator-access-token' };
const input = { subject: 'VIP customers', joinApprovalMode: 'approval_required' } as const;

let simulator: WhatsAppSimulator;
let receiver: WebhookReceiver;
let network: GraphMessagingNetwork;

async function failure(promise: Promise<unknown>): Promise<NetworkError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(NetworkError);
  return error as NetworkError;
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  simulator = new WhatsAppSimulator({ appSecret: 'secret', webhookUrl: receiver.url, webhookDelayMs: 5 });
  const port = await simulator.listen(0);
  network = new GraphMessagingNetwork({ baseUrl: `http://127.0.0.1:${port}/${GRAPH_VERSION}`, timeoutMs: 1_000 });
});

afterEach(async () => {
  await simulator.flushWebhooks();
  await simulator.reset();
  receiver.received.length = 0;
});

afterAll(async () => {
  await simulator.close();
  await receiver.close();
});

describe('GraphMessagingNetwork against the WhatsApp simulator', () => {
  it('runs a group through its life: create, confirm, list, link, join request, messages, removal, delete', async () => {
    const { networkRequestId } = await network.createGroup(channel, input);
    await simulator.flushWebhooks();
    const confirmation = receiver.values('group_lifecycle_update')[0]?.groups[0];
    const groupId: string = confirmation.group_id;

    const listed = await network.listGroups(channel);
    const link = await network.getInviteLink(channel, groupId);
    const newLink = await network.resetInviteLink(channel, groupId);
    const tooEarly = await failure(network.sendText(channel, { groupId }, 'Anyone here?'));
    const joinRequestId = simulator.requestToJoin(groupId, '+4915112345678');
    const approval = await network.approveJoinRequests(channel, groupId, [joinRequestId, '404']);
    const text = await network.sendText(channel, { groupId }, 'Welcome!');
    const invite = await network.sendGroupInvite(channel, '+4917698765432', groupId, DEFAULT_INVITE_TEMPLATE);
    await network.removeParticipants(channel, groupId, ['+4915112345678']);
    await network.deleteGroup(channel, groupId);
    const gone = await failure(network.getInviteLink(channel, groupId));

    expect(confirmation.request_id).toBe(networkRequestId);
    expect(listed).toEqual([{ groupId, subject: 'VIP customers', createdAt: expect.stringMatching(/Z$/) }]);
    expect(link).toBe(confirmation.invite_link);
    expect(newLink).not.toBe(link);
    expect(tooEarly).toMatchObject({ kind: 'rejected', details: { code: 131020, httpStatus: 400 } });
    expect(approval).toEqual({
      succeeded: [joinRequestId],
      failed: [{ joinRequestId: '404', code: 131213, message: 'Group join request does not exist' }],
    });
    expect(text.networkMessageId).toMatch(/^wamid\./);
    expect(simulator.messages.map((message) => [message.messageId, message.recipientType, message.to])).toEqual([
      [text.networkMessageId, 'group', groupId],
      [invite.networkMessageId, 'individual', '4917698765432'],
    ]);
    expect(gone).toMatchObject({ kind: 'rejected', code: 131041 });
    expect(simulator.requestLog.every((entry) => !JSON.stringify(entry).includes(channel.accessToken))).toBe(true);
  });

  it('rejects a refused join request', async () => {
    await network.createGroup(channel, input);
    await simulator.flushWebhooks();
    const groupId = simulator.groups(PHONE)[0]!.groupId;
    const joinRequestId = simulator.requestToJoin(groupId, '4915112345678');

    const outcome = await network.rejectJoinRequests(channel, groupId, [joinRequestId]);

    expect(outcome).toEqual({ succeeded: [joinRequestId], failed: [] });
    expect(simulator.group(groupId)?.joinRequests).toEqual([]);
  });

  it('is ambiguous when the create committed but never answered, and reconciliation finds exactly one group', async () => {
    simulator.addFault({ method: 'POST', path: '/groups$', mode: 'timeout-after-commit' });

    const error = await failure(network.createGroup(channel, input));
    const groups = await network.listGroups(channel);

    expect(error.kind).toBe('ambiguous');
    expect(groups).toHaveLength(1);
  });

  it('is not-sent on the group rate limit 131208 and nothing was created', async () => {
    simulator.addFault({ path: '/groups$', mode: 'code131208', retryAfterSeconds: 2 });

    const error = await failure(network.createGroup(channel, input));

    expect(error).toMatchObject({ kind: 'not-sent', details: { code: 131208, httpStatus: 429, retryAfterSeconds: 2 } });
    expect(simulator.groups(PHONE)).toEqual([]);
  });

  it('is ambiguous on a 500 and not-sent when the same fault hits a read', async () => {
    simulator.addFault({ mode: 'http500', times: 2 });

    const write = await failure(network.createGroup(channel, input));
    const read = await failure(network.listGroups(channel));

    expect([write.kind, read.kind]).toEqual(['ambiguous', 'not-sent']);
  });

  it("is rejected with Meta's code when the number is not eligible", async () => {
    simulator.scriptNextGroup({ outcome: 'reject', code: 131215 });

    const error = await failure(network.createGroup(channel, input));

    expect(error).toMatchObject({
      kind: 'rejected',
      code: 131215,
      message: '(#131215) Number not eligible for Groups APIs',
    });
  });

  it('is rejected with 190 when the channel has no access token', async () => {
    const error = await failure(network.listGroups({ phoneNumberId: PHONE, accessToken: '' }));

    expect(error).toMatchObject({ kind: 'rejected', code: 190, details: { httpStatus: 401 } });
  });
});
