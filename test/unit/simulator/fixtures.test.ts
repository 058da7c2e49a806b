import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPH_VERSION, WhatsAppSimulator } from '#infra/local/simulator/server';
import { GraphMessagingNetwork } from '#shared/adapters/graph/graph-network';
import {
  fixtureText,
  loadFixture,
  type MetaNotification,
  signedMetaRequest,
  signMetaBody,
  startWebhookReceiver,
  type WebhookReceiver,
} from '#test/support/whatsapp';

const PHONE = '100000000000001';
const channel = { phoneNumberId: PHONE, accessToken: 'token' };

let simulator: WhatsAppSimulator;
let receiver: WebhookReceiver;
let network: GraphMessagingNetwork;

/** Keys and value types, recursively; arrays by their first element. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length ? [shape(value[0])] : [];
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .map(([key, item]) => [key, shape(item)])
        .sort(),
    );
  }
  return typeof value;
}

/** Runs `action` and returns the notifications it caused. */
async function notificationsOf(action: () => unknown): Promise<MetaNotification[]> {
  const before = receiver.received.length;
  await action();
  await simulator.flushWebhooks();
  return receiver.received.slice(before).map((delivery) => delivery.body);
}

const produced = new Map<string, MetaNotification>();

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  simulator = new WhatsAppSimulator({ appSecret: 'secret', webhookUrl: receiver.url, webhookDelayMs: 1 });
  const port = await simulator.listen(0);
  network = new GraphMessagingNetwork({ baseUrl: `http://127.0.0.1:${port}/${GRAPH_VERSION}` });
  const input = { subject: 'VIP', description: 'Early access', joinApprovalMode: 'approval_required' } as const;
  const last = async (name: string, action: () => unknown) =>
    produced.set(name, (await notificationsOf(action)).at(-1)!);

  simulator.scriptNextGroup({ outcome: 'fail' });
  await last('group-create-failure', () => network.createGroup(channel, input));
  await last('group-create-success', () => network.createGroup(channel, input));
  const groupId = simulator.groups(PHONE)[0]!.groupId;
  let joinRequestId = '';
  await last('join-request-created', () => {
    joinRequestId = simulator.requestToJoin(groupId, '4917698765432');
  });
  await last('join-request-revoked', () => simulator.revokeJoinRequest(groupId, joinRequestId));
  await last('participants-add', () => simulator.join(groupId, '4915112345678'));
  const again = simulator.requestToJoin(groupId, '4917698765432');
  await last('join-request-approved', () => network.approveJoinRequests(channel, groupId, [again]));
  let messageId = '';
  const [sent, delivered] = await notificationsOf(async () => {
    messageId = (await network.sendText(channel, { groupId }, 'Welcome')).networkMessageId;
  });
  produced.set('status-sent', sent!).set('status-delivered', delivered!);
  await last('status-failed', () => simulator.setMessageStatus(messageId, 'failed'));
  await last('inbound-group-message', () =>
    simulator.receiveMessage(groupId, { from: '4915112345678', text: 'Hi', name: 'Jürgen' }),
  );
  await last('participant-left', () => simulator.leave(groupId, '4917698765432'));
  await last('participants-remove', () => network.removeParticipants(channel, groupId, ['+4915112345678']));
  const settings = { subject: 'Launch crew (EU)', description: 'Everything about launch day' };
  await last('group-settings-update', () => network.updateGroupSettings(channel, groupId, settings));
  simulator.scriptNextSettings({ failFields: ['description'] });
  await last('group-settings-partial', () => network.updateGroupSettings(channel, groupId, settings));
  await last('group-suspend', () => simulator.suspend(groupId));
  await last('group-suspend-cleared', () => simulator.clearSuspension(groupId));
  await last('group-delete', () => network.deleteGroup(channel, groupId));
});

afterAll(async () => {
  await simulator.close();
  await receiver.close();
});

describe('WhatsApp webhook fixtures', () => {
  const names = readdirSync(new URL('../../fixtures/events/whatsapp/', import.meta.url)).map((file) =>
    file.replace(/\.json$/, ''),
  );

  it('has a simulator scenario for every fixture', () => {
    expect(names.sort()).toEqual([...produced.keys()].sort());
  });

  it.each(names)('%s has the shape of what the simulator sends', (name) => {
    const fixture = loadFixture(name);

    expect(shape(produced.get(name))).toEqual(shape(fixture));
    expect(fixture.entry[0]?.changes[0]?.value.metadata.phone_number_id).toBe(PHONE);
  });

  it('signs fixtures as Meta does: over the escaped compact bytes, not the pretty file', () => {
    const { body, headers } = signedMetaRequest(loadFixture('inbound-group-message'), 'secret');

    expect(body).toContain('J\\u00fcrgen Wei\\u00df');
    expect(headers['x-hub-signature-256']).toBe(signMetaBody(body, 'secret'));
    expect(headers['x-hub-signature-256']).not.toBe(signMetaBody(fixtureText('inbound-group-message'), 'secret'));
  });
});
