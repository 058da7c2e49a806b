/**
 * CONTRACT §19 with openapi-typescript (types) and openapi-fetch (calls): every operation of openapi.json called through the client generated from the
 * served document, every field of every success body and every problem document read, with no cast.
 * `npm run test:generators` generates the client and type-checks this file (strict TypeScript 5.9); it is never run.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from '../generated/openapi-typescript/schema';
import { read } from './read';

type Problem = components['schemas']['Problem'];
type GatewayError = components['schemas']['GatewayError'];

const client = createClient<paths>({
  baseUrl: 'http://127.0.0.1:3000',
  headers: { authorization: 'Bearer <accessToken>' },
});

/** Reads a problem document, or API Gateway's own `{"message"}` (413, 429, 500 and 503 on AWS). */
function readError(error: Problem | GatewayError): void {
  if ('message' in error) {
    read(error.message);
    return;
  }
  read(error.type);
  read(error.title);
  read(error.status);
  read(error.detail);
  read(error.code);
  read(error.instance);
  for (const entry of error.errors ?? []) {
    read(entry.pointer);
    read(entry.message);
  }
}

/** POST /api/wp-crm/token */
export async function walkIssueToken(): Promise<void> {
  const { data, error } = await client.POST('/api/wp-crm/token', {
    body: { clientId: 'cli_01M80K1GZ4XXJT0DBNYWF2ECVT', clientSecret: 'cs_LilbO3xq9Zr7VfT2nW8kPa5sYd1Hc4Ju6Ge0Mb' },
  });
  if (error) return readError(error);
  read(data.accessToken);
  read(data.tokenType);
  read(data.expiresIn);
  read(data.org);
  read(data.roles);
}

/** GET /api/wp-crm/.well-known/jwks.json */
export async function walkGetJwks(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/.well-known/jwks.json');
  if (error) return readError(error);
  for (const key of data.keys) {
    read(key.kty);
    read(key.crv);
    read(key.x);
    read(key.y);
    read(key.kid);
    read(key.alg);
    read(key.use);
  }
}

/** GET /api/wp-crm/health */
export async function walkGetHealth(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/health');
  if (error) return readError(error);
  read(data.status);
}

/** GET /api/wp-crm/openapi.json */
export async function walkGetOpenApi(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/openapi.json');
  if (error) return readError(error);
  read(data.openapi);
  read(data.info.title);
  read(data.info.version);
  read(data.paths);
}

/** GET /api/wp-crm/docs */
export async function walkGetDocs(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/docs', { parseAs: 'text' });
  if (error) return readError(error);
  read(data);
}

/** GET /api/wp-crm/docs/{asset} */
export async function walkGetDocsAsset(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/docs/{asset}', {
    params: { path: { asset: 'redoc.4f2a9c1e.js' } },
    parseAs: 'text',
  });
  if (error) return readError(error);
  read(data);
}

/** GET /api/wp-crm/channels/{orgId} */
export async function walkListChannels(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/channels/{orgId}', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe' }, query: { limit: 20 } },
  });
  if (error) return readError(error);
  for (const channel of data.channels) {
    read(channel.channelId);
    read(channel.name);
    read(channel.type);
    read(channel.phoneNumber);
    read(channel.officialBusinessAccount);
    read(channel.groupsEligible);
    read(channel.createdAt);
    read(channel.inviteTemplate.name);
    read(channel.inviteTemplate.language);
  }
  read(data.nextCursor);
}

/** POST /api/wp-crm/groups/{orgId}/{chatId}/join-requests/approve */
export async function walkApproveJoinRequests(): Promise<void> {
  const { data, error } = await client.POST('/api/wp-crm/groups/{orgId}/{chatId}/join-requests/approve', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', chatId: 'cht_01M80K1R10W8DAZKGWSRRYPVK7' } },
    body: { joinRequestIds: ['MTIwMzYzMDI1MjQ2MTI1NDg2OjQ5MTUxMTIzNDU2Nzg'] },
  });
  if (error) return readError(error);
  read(data.succeeded);
  for (const failedItem of data.failed) {
    read(failedItem.joinRequestId);
    read(failedItem.error.code);
    read(failedItem.error.message);
  }
}

/** POST /api/wp-crm/chat-assignments/{orgId}/{chatId} */
export async function walkAssignChat(): Promise<void> {
  const { data, error } = await client.POST('/api/wp-crm/chat-assignments/{orgId}/{chatId}', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', chatId: 'cht_01M80K1R10W8DAZKGWSRRYPVK7' } },
    body: { userIds: ['usr_anna', 'usr_ben'], teamIds: ['team_support'], primaryUserId: 'usr_anna' },
  });
  if (error) return readError(error);
  read(data.chatId);
  read(data.assignedUserIds);
  read(data.assignedTeamIds);
  read(data.primaryAssigneeUserId);
}

/** POST /api/wp-crm/groups/{orgId} */
export async function walkCreateGroup(): Promise<void> {
  const { data, error } = await client.POST('/api/wp-crm/groups/{orgId}', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe' } },
    body: {
      channelId: 'ch_01M80K1H7X9T4WQ2M5R8B3N6KD',
      subject: 'Launch crew',
      description: 'Everyone working on the November launch',
    },
  });
  if (error) return readError(error);
  read(data.requestId);
  read(data.status);
  read(data.statusUrl);
}

/** GET /api/wp-crm/groups/{orgId} */
export async function walkListGroups(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/groups/{orgId}', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe' }, query: { limit: 20 } },
  });
  if (error) return readError(error);
  for (const group of data.groups) {
    read(group.chatId);
    read(group.channelId);
    read(group.externalChatId);
    read(group.subject);
    read(group.description);
    read(group.groupStatus);
    read(group.joinApprovalRequired);
    read(group.participantCount);
    read(group.createdAt);
    read(group.updatedAt);
  }
  read(data.nextCursor);
}

/** DELETE /api/wp-crm/groups/{orgId}/{chatId} */
export async function walkDeleteGroup(): Promise<void> {
  const { data, error } = await client.DELETE('/api/wp-crm/groups/{orgId}/{chatId}', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', chatId: 'cht_01M80K1R10W8DAZKGWSRRYPVK7' } },
  });
  if (error) return readError(error);
  read(data.chatId);
  read(data.status);
}

/** GET /api/wp-crm/groups/{orgId}/{chatId} */
export async function walkGetGroup(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/groups/{orgId}/{chatId}', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', chatId: 'cht_01M80K1R10W8DAZKGWSRRYPVK7' } },
  });
  if (error) return readError(error);
  read(data.chatId);
  read(data.channelId);
  read(data.externalChatId);
  read(data.subject);
  read(data.description);
  read(data.groupStatus);
  read(data.joinApprovalRequired);
  read(data.participantCount);
  read(data.createdAt);
  read(data.updatedAt);
}

/** PATCH /api/wp-crm/groups/{orgId}/{chatId} */
export async function walkUpdateGroup(): Promise<void> {
  const { data, error } = await client.PATCH('/api/wp-crm/groups/{orgId}/{chatId}', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', chatId: 'cht_01M80K1R10W8DAZKGWSRRYPVK7' } },
    body: { subject: 'Launch crew (Q4)' },
  });
  if (error) return readError(error);
  read(data.chatId);
  read(data.status);
}

/** GET /api/wp-crm/chats/{orgId}/{chatId} */
export async function walkGetChat(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/chats/{orgId}/{chatId}', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', chatId: 'cht_01M80K1R10W8DAZKGWSRRYPVK7' } },
  });
  if (error) return readError(error);
  read(data.chatId);
  read(data.name);
  read(data.chatType);
  read(data.channelId);
  read(data.externalChatId);
  read(data.isArchived);
  read(data.isResolved);
  read(data.isHighPriority);
  read(data.autopilot);
  read(data.botJourneyStatus);
  read(data.lastMessageFrom);
  read(data.assignedUserIds);
  read(data.assignedTeamIds);
  read(data.primaryAssigneeUserId);
  read(data.contactIds);
  read(data.stateMachineIds);
  read(data.currentStateIds);
  read(data.labelIds);
  read(data.externalItems);
  read(data.createdAt);
  read(data.updatedAt);
  read(data.inviteLink);
  for (const participant of data.participants ?? []) {
    read(participant.phoneNumber);
    read(participant.userId);
    read(participant.joinedAt);
  }
  read(data.requireJoinApproval);
  read(data.description);
  read(data.groupStatus);
}

/** GET /api/wp-crm/groups/{orgId}/creation-status/{requestId} */
export async function walkGetGroupCreationStatus(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/groups/{orgId}/creation-status/{requestId}', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', requestId: 'grq_01M80K1R10W8DAZKGWSRRYPVK7' } },
  });
  if (error) return readError(error);
  read(data.requestId);
  read(data.status);
  read(data.channelId);
  read(data.subject);
  read(data.chatId);
  read(data.inviteLink);
  read(data.error?.code);
  read(data.error?.message);
  read(data.createdAt);
  read(data.updatedAt);
}

/** GET /api/wp-crm/groups/{orgId}/{chatId}/invite-link */
export async function walkGetInviteLink(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/groups/{orgId}/{chatId}/invite-link', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', chatId: 'cht_01M80K1R10W8DAZKGWSRRYPVK7' } },
  });
  if (error) return readError(error);
  read(data.inviteLink);
}

/** POST /api/wp-crm/groups/{orgId}/{chatId}/participants */
export async function walkInviteParticipants(): Promise<void> {
  const { data, error } = await client.POST('/api/wp-crm/groups/{orgId}/{chatId}/participants', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', chatId: 'cht_01M80K1R10W8DAZKGWSRRYPVK7' } },
    body: { phoneNumbers: ['+4915112345678', '+4917698765432'] },
  });
  if (error) return readError(error);
  for (const invitation of data.invitations) {
    read(invitation.phoneNumber);
    read(invitation.status);
    read(invitation.messageId);
    read(invitation.error?.code);
    read(invitation.error?.message);
  }
}

/** GET /api/wp-crm/groups/{orgId}/{chatId}/participants */
export async function walkListParticipants(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/groups/{orgId}/{chatId}/participants', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', chatId: 'cht_01M80K1R10W8DAZKGWSRRYPVK7' } },
  });
  if (error) return readError(error);
  for (const participant of data.participants) {
    read(participant.phoneNumber);
    read(participant.userId);
    read(participant.joinedAt);
  }
}

/** DELETE /api/wp-crm/groups/{orgId}/{chatId}/participants */
export async function walkRemoveParticipants(): Promise<void> {
  const { data, error } = await client.DELETE('/api/wp-crm/groups/{orgId}/{chatId}/participants', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', chatId: 'cht_01M80K1R10W8DAZKGWSRRYPVK7' } },
    body: { phoneNumbers: ['+4915112345678'] },
  });
  if (error) return readError(error);
  read(data.status);
  read(data.phoneNumbers);
  read(data.userIds);
}

/** GET /api/wp-crm/groups/{orgId}/{chatId}/join-requests */
export async function walkListJoinRequests(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/groups/{orgId}/{chatId}/join-requests', {
    params: {
      path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', chatId: 'cht_01M80K1R10W8DAZKGWSRRYPVK7' },
      query: { limit: 20 },
    },
  });
  if (error) return readError(error);
  for (const joinRequest of data.joinRequests) {
    read(joinRequest.joinRequestId);
    read(joinRequest.phoneNumber);
    read(joinRequest.userId);
    read(joinRequest.createdAt);
  }
  read(data.nextCursor);
}

/** GET /api/wp-crm/chats/{orgId}/{chatId}/messages */
export async function walkListMessages(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/chats/{orgId}/{chatId}/messages', {
    params: {
      path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', chatId: 'cht_01M80K1R10W8DAZKGWSRRYPVK7' },
      query: { limit: 20 },
    },
  });
  if (error) return readError(error);
  for (const message of data.messages) {
    read(message.messageId);
    read(message.chatId);
    read(message.direction);
    read(message.from);
    read(message.sentBy);
    read(message.text);
    read(message.status);
    read(message.error?.code);
    read(message.error?.message);
    read(message.createdAt);
  }
  read(data.nextCursor);
}

/** GET /api/wp-crm/chats/{orgId}/{chatId}/messages/{messageId}/receipts */
export async function walkListReceipts(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/chats/{orgId}/{chatId}/messages/{messageId}/receipts', {
    params: {
      path: {
        orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
        chatId: 'cht_01M80K1R10W8DAZKGWSRRYPVK7',
        messageId: 'msg_01M80K1ZBDF09RFHCZD6P2TYGW',
      },
      query: { limit: 20 },
    },
  });
  if (error) return readError(error);
  for (const receipt of data.receipts) {
    read(receipt.phoneNumber);
    read(receipt.userId);
    read(receipt.status);
    read(receipt.at);
  }
  read(data.nextCursor);
}

/** POST /api/wp-crm/network/whatsapp/webhook */
export async function walkReceiveNetworkWebhook(): Promise<void> {
  const { data, error } = await client.POST('/api/wp-crm/network/whatsapp/webhook', {
    params: { header: { 'X-Hub-Signature-256': 'sha256=<hex HMAC of the raw body>' } },
    body: {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '102290129340398',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '4915100000001', phone_number_id: '106540352242922' },
                statuses: [
                  {
                    id: 'wamid.HBgNNDkxNTExMjM0NTY3OBUCABEYEjQ0QTVGRjE3MkYxQkQ0QTk2AA==',
                    status: 'delivered',
                    timestamp: '1795512665',
                    recipient_id: '120363025246125486@g.us',
                    recipient_type: 'group',
                  },
                ],
              },
            },
          ],
        },
      ],
    },
  });
  if (error) return readError(error);
  read(data.received);
}

/** GET /api/wp-crm/network/whatsapp/webhook */
export async function walkVerifyNetworkWebhook(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/network/whatsapp/webhook', {
    params: {
      query: { 'hub.mode': 'subscribe', 'hub.verify_token': '<hub.verify_token>', 'hub.challenge': '1158201444' },
    },
    parseAs: 'text',
  });
  if (error) return readError(error);
  read(data);
}

/** POST /api/wp-crm/groups/{orgId}/{chatId}/join-requests/reject */
export async function walkRejectJoinRequests(): Promise<void> {
  const { data, error } = await client.POST('/api/wp-crm/groups/{orgId}/{chatId}/join-requests/reject', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', chatId: 'cht_01M80K1R10W8DAZKGWSRRYPVK7' } },
    body: { joinRequestIds: ['MTIwMzYzMDI1MjQ2MTI1NDg2OjQ5MTc2OTg3NjU0MzI'] },
  });
  if (error) return readError(error);
  read(data.succeeded);
  for (const failedItem of data.failed) {
    read(failedItem.joinRequestId);
    read(failedItem.error.code);
    read(failedItem.error.message);
  }
}

/** POST /api/wp-crm/groups/{orgId}/{chatId}/invite-link/reset */
export async function walkResetInviteLink(): Promise<void> {
  const { data, error } = await client.POST('/api/wp-crm/groups/{orgId}/{chatId}/invite-link/reset', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', chatId: 'cht_01M80K1R10W8DAZKGWSRRYPVK7' } },
  });
  if (error) return readError(error);
  read(data.inviteLink);
}

/** POST /api/wp-crm/messaging/send-message */
export async function walkSendMessage(): Promise<void> {
  const { data, error } = await client.POST('/api/wp-crm/messaging/send-message', {
    body: { chatId: 'cht_01M80K1R10W8DAZKGWSRRYPVK7', text: 'Welcome aboard!' },
  });
  if (error) return readError(error);
  read(data.messageId);
  read(data.status);
}

/** POST /api/wp-crm/webhooks/{orgId} */
export async function walkCreateWebhook(): Promise<void> {
  const { data, error } = await client.POST('/api/wp-crm/webhooks/{orgId}', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe' } },
    body: {
      url: 'https://crm.example.com/hooks/wp-crm',
      events: ['group.created', 'group.creation_failed', 'report.completed'],
      description: 'Production CRM',
    },
  });
  if (error) return readError(error);
  read(data.webhookId);
  read(data.url);
  read(data.events);
  read(data.description);
  read(data.status);
  read(data.disabledReason);
  read(data.createdAt);
  read(data.secret);
}

/** GET /api/wp-crm/webhooks/{orgId} */
export async function walkListWebhooks(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/webhooks/{orgId}', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe' }, query: { limit: 20 } },
  });
  if (error) return readError(error);
  for (const webhook of data.webhooks) {
    read(webhook.webhookId);
    read(webhook.url);
    read(webhook.events);
    read(webhook.description);
    read(webhook.status);
    read(webhook.disabledReason);
    read(webhook.createdAt);
  }
  read(data.nextCursor);
}

/** DELETE /api/wp-crm/webhooks/{orgId}/{webhookId} */
export async function walkDeleteWebhook(): Promise<void> {
  const { error, response } = await client.DELETE('/api/wp-crm/webhooks/{orgId}/{webhookId}', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', webhookId: 'whk_01M80K2C7M4N8P1R5T9W3Y6B0D' } },
  });
  if (error) return readError(error);
  read(response.status);
}

/** PATCH /api/wp-crm/webhooks/{orgId}/{webhookId} */
export async function walkUpdateWebhook(): Promise<void> {
  const { data, error } = await client.PATCH('/api/wp-crm/webhooks/{orgId}/{webhookId}', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', webhookId: 'whk_01M80K2C7M4N8P1R5T9W3Y6B0D' } },
    body: { status: 'active' },
  });
  if (error) return readError(error);
  read(data.webhookId);
  read(data.url);
  read(data.events);
  read(data.description);
  read(data.status);
  read(data.disabledReason);
  read(data.createdAt);
}

/** GET /api/wp-crm/webhooks/{orgId}/{webhookId}/deliveries */
export async function walkListDeliveries(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/webhooks/{orgId}/{webhookId}/deliveries', {
    params: {
      path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', webhookId: 'whk_01M80K2C7M4N8P1R5T9W3Y6B0D' },
      query: { limit: 20 },
    },
  });
  if (error) return readError(error);
  for (const delivery of data.deliveries) {
    read(delivery.deliveryId);
    read(delivery.eventId);
    read(delivery.type);
    read(delivery.status);
    read(delivery.attempts);
    read(delivery.lastStatusCode);
    read(delivery.lastError);
    read(delivery.nextAttemptAt);
    read(delivery.createdAt);
  }
  read(data.nextCursor);
}

/** GET /api/wp-crm/webhooks/{orgId}/{webhookId}/deliveries/{deliveryId}/attempts */
export async function walkListDeliveryAttempts(): Promise<void> {
  const { data, error } = await client.GET(
    '/api/wp-crm/webhooks/{orgId}/{webhookId}/deliveries/{deliveryId}/attempts',
    {
      params: {
        path: {
          orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
          webhookId: 'whk_01M80K2C7M4N8P1R5T9W3Y6B0D',
          deliveryId: 'dlv_01M80K2F2H6K9M3P7S1V5X8Z4C',
        },
      },
    },
  );
  if (error) return readError(error);
  for (const attempt of data.attempts) {
    read(attempt.attempt);
    read(attempt.at);
    read(attempt.statusCode);
    read(attempt.durationMs);
    read(attempt.error);
    read(attempt.responseBody);
  }
}

/** POST /api/wp-crm/webhooks/{orgId}/{webhookId}/deliveries/{deliveryId}/redeliver */
export async function walkRedeliver(): Promise<void> {
  const { data, error } = await client.POST(
    '/api/wp-crm/webhooks/{orgId}/{webhookId}/deliveries/{deliveryId}/redeliver',
    {
      params: {
        path: {
          orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
          webhookId: 'whk_01M80K2C7M4N8P1R5T9W3Y6B0D',
          deliveryId: 'dlv_01M80K2F2H6K9M3P7S1V5X8Z4C',
        },
      },
    },
  );
  if (error) return readError(error);
  read(data.deliveryId);
  read(data.status);
}

/** POST /api/wp-crm/webhooks/{orgId}/{webhookId}/rotate-secret */
export async function walkRotateWebhookSecret(): Promise<void> {
  const { data, error } = await client.POST('/api/wp-crm/webhooks/{orgId}/{webhookId}/rotate-secret', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', webhookId: 'whk_01M80K2C7M4N8P1R5T9W3Y6B0D' } },
  });
  if (error) return readError(error);
  read(data.secret);
}

/** POST /api/wp-crm/webhooks/{orgId}/{webhookId}/test */
export async function walkSendWebhookTest(): Promise<void> {
  const { data, error } = await client.POST('/api/wp-crm/webhooks/{orgId}/{webhookId}/test', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', webhookId: 'whk_01M80K2C7M4N8P1R5T9W3Y6B0D' } },
    body: { type: 'group.created' },
  });
  if (error) return readError(error);
  read(data.deliveryId);
  read(data.eventId);
}

/** POST /api/wp-crm/reports/{organisationId} */
export async function walkRequestReport(): Promise<void> {
  const { data, error } = await client.POST('/api/wp-crm/reports/{organisationId}', {
    params: { path: { organisationId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe' } },
    body: { reportType: 'CHAT', channelIds: ['ch_01M80K1H7X9T4WQ2M5R8B3N6KD'], updatedAfter: '2026-11-01' },
  });
  if (error) return readError(error);
  read(data.reportId);
  read(data.organisationId);
  read(data.status);
  read(data.requestedAt);
  read(data.requestedBy);
  read(data.startedAt);
  read(data.completedAt);
  read(data.rowCount);
  read(data.sizeBytes);
  read(data.format);
  read(data.expiresAt);
  read(data.error?.code);
  read(data.error?.message);
  read(data.filters);
  switch (data.reportType) {
    case 'CHAT':
      read(data.filters.isArchived);
      read(data.filters.isResolved);
      read(data.filters.isHighPriority);
      read(data.filters.isBotHandled);
      read(data.filters.isUnanswered);
      read(data.filters.isAssigned);
      read(data.filters.hasActiveAgentTransfer);
      read(data.filters.hasClosedBotSession);
      read(data.filters.assignedToUserIds);
      read(data.filters.assignedToTeamIds);
      read(data.filters.hasPrimaryAssignee);
      read(data.filters.hasNoPrimaryAssignee);
      read(data.filters.hasContacts);
      read(data.filters.chatContactSearch);
      read(data.filters.stateMachineIds);
      read(data.filters.currentStateIds);
      read(data.filters.hasStateMachines);
      read(data.filters.search);
      read(data.filters.chatType);
      read(data.filters.channelIds);
      read(data.filters.updatedAfter);
      read(data.filters.updatedBefore);
      read(data.filters.labelIds);
      read(data.filters.hasLabels);
      read(data.filters.allLabelIds);
      break;
    case 'CONTACT':
      read(data.filters.contactSearch);
      read(data.filters.contactChannelIds);
      read(data.filters.contactHasChats);
      read(data.filters.contactCreatedAfter);
      read(data.filters.contactCreatedBefore);
      read(data.filters.contactCreatedByUserIds);
      read(data.filters.contactCustomFieldRules);
      break;
    case 'TICKET':
      read(data.filters.ticketIsResolved);
      read(data.filters.ticketPriorityLevels);
      read(data.filters.ticketAssignedToUserIds);
      read(data.filters.ticketCreatedByUserIds);
      read(data.filters.ticketMachineIds);
      read(data.filters.ticketCreatedAfter);
      read(data.filters.ticketCreatedBefore);
      read(data.filters.ticketSearch);
      break;
    case 'CALL_LOG':
      read(data.filters.callDirection);
      read(data.filters.callStatuses);
      read(data.filters.callAgentUserIds);
      read(data.filters.callAccountId);
      read(data.filters.callInitiatedAfter);
      read(data.filters.callInitiatedBefore);
      read(data.filters.callPhoneSearch);
      read(data.filters.callHasChat);
      read(data.filters.callHasRecording);
      read(data.filters.callMinDurationSeconds);
      read(data.filters.callMaxDurationSeconds);
      read(data.filters.callHangupCauseSearch);
      read(data.filters.callContactSearch);
      break;
    case 'GOAL':
      read(data.filters.goalRecordedAfter);
      read(data.filters.goalRecordedBefore);
      read(data.filters.goalIds);
      read(data.filters.goalChannelIds);
      read(data.filters.goalTrackerValueRules);
      break;
    case 'BOOKING':
      read(data.filters.bookingTypes);
      read(data.filters.bookingStatuses);
      read(data.filters.bookingAgentUserIds);
      read(data.filters.bookingContactId);
      read(data.filters.bookingStartsOnOrAfter);
      read(data.filters.bookingStartsOnOrBefore);
      break;
    case 'FOLLOW_UPS':
      read(data.filters.followUpAgentUserIds);
      read(data.filters.followUpStatuses);
      read(data.filters.followUpKind);
      read(data.filters.followUpDueOnOrAfter);
      read(data.filters.followUpDueOnOrBefore);
      break;
    case 'SURVEY_RESPONSES':
      read(data.filters.surveyFormIds);
      read(data.filters.surveyStatuses);
      read(data.filters.surveySources);
      read(data.filters.surveyStartedOnOrAfter);
      read(data.filters.surveyStartedOnOrBefore);
      read(data.filters.surveyChannel);
      break;
    case 'FLOW_RESPONSES':
      read(data.filters.flowIds);
      read(data.filters.flowSources);
      read(data.filters.flowRespondedOnOrAfter);
      read(data.filters.flowRespondedOnOrBefore);
      break;
  }
}

/** GET /api/wp-crm/reports/{organisationId} */
export async function walkListReports(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/reports/{organisationId}', {
    params: { path: { organisationId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe' }, query: { limit: 20 } },
  });
  if (error) return readError(error);
  for (const report of data.reports) {
    read(report.reportId);
    read(report.organisationId);
    read(report.status);
    read(report.requestedAt);
    read(report.requestedBy);
    read(report.startedAt);
    read(report.completedAt);
    read(report.rowCount);
    read(report.sizeBytes);
    read(report.format);
    read(report.expiresAt);
    read(report.error?.code);
    read(report.error?.message);
    read(report.filters);
    switch (report.reportType) {
      case 'CHAT':
        read(report.filters.isArchived);
        read(report.filters.isResolved);
        read(report.filters.isHighPriority);
        read(report.filters.isBotHandled);
        read(report.filters.isUnanswered);
        read(report.filters.isAssigned);
        read(report.filters.hasActiveAgentTransfer);
        read(report.filters.hasClosedBotSession);
        read(report.filters.assignedToUserIds);
        read(report.filters.assignedToTeamIds);
        read(report.filters.hasPrimaryAssignee);
        read(report.filters.hasNoPrimaryAssignee);
        read(report.filters.hasContacts);
        read(report.filters.chatContactSearch);
        read(report.filters.stateMachineIds);
        read(report.filters.currentStateIds);
        read(report.filters.hasStateMachines);
        read(report.filters.search);
        read(report.filters.chatType);
        read(report.filters.channelIds);
        read(report.filters.updatedAfter);
        read(report.filters.updatedBefore);
        read(report.filters.labelIds);
        read(report.filters.hasLabels);
        read(report.filters.allLabelIds);
        break;
      case 'CONTACT':
        read(report.filters.contactSearch);
        read(report.filters.contactChannelIds);
        read(report.filters.contactHasChats);
        read(report.filters.contactCreatedAfter);
        read(report.filters.contactCreatedBefore);
        read(report.filters.contactCreatedByUserIds);
        read(report.filters.contactCustomFieldRules);
        break;
      case 'TICKET':
        read(report.filters.ticketIsResolved);
        read(report.filters.ticketPriorityLevels);
        read(report.filters.ticketAssignedToUserIds);
        read(report.filters.ticketCreatedByUserIds);
        read(report.filters.ticketMachineIds);
        read(report.filters.ticketCreatedAfter);
        read(report.filters.ticketCreatedBefore);
        read(report.filters.ticketSearch);
        break;
      case 'CALL_LOG':
        read(report.filters.callDirection);
        read(report.filters.callStatuses);
        read(report.filters.callAgentUserIds);
        read(report.filters.callAccountId);
        read(report.filters.callInitiatedAfter);
        read(report.filters.callInitiatedBefore);
        read(report.filters.callPhoneSearch);
        read(report.filters.callHasChat);
        read(report.filters.callHasRecording);
        read(report.filters.callMinDurationSeconds);
        read(report.filters.callMaxDurationSeconds);
        read(report.filters.callHangupCauseSearch);
        read(report.filters.callContactSearch);
        break;
      case 'GOAL':
        read(report.filters.goalRecordedAfter);
        read(report.filters.goalRecordedBefore);
        read(report.filters.goalIds);
        read(report.filters.goalChannelIds);
        read(report.filters.goalTrackerValueRules);
        break;
      case 'BOOKING':
        read(report.filters.bookingTypes);
        read(report.filters.bookingStatuses);
        read(report.filters.bookingAgentUserIds);
        read(report.filters.bookingContactId);
        read(report.filters.bookingStartsOnOrAfter);
        read(report.filters.bookingStartsOnOrBefore);
        break;
      case 'FOLLOW_UPS':
        read(report.filters.followUpAgentUserIds);
        read(report.filters.followUpStatuses);
        read(report.filters.followUpKind);
        read(report.filters.followUpDueOnOrAfter);
        read(report.filters.followUpDueOnOrBefore);
        break;
      case 'SURVEY_RESPONSES':
        read(report.filters.surveyFormIds);
        read(report.filters.surveyStatuses);
        read(report.filters.surveySources);
        read(report.filters.surveyStartedOnOrAfter);
        read(report.filters.surveyStartedOnOrBefore);
        read(report.filters.surveyChannel);
        break;
      case 'FLOW_RESPONSES':
        read(report.filters.flowIds);
        read(report.filters.flowSources);
        read(report.filters.flowRespondedOnOrAfter);
        read(report.filters.flowRespondedOnOrBefore);
        break;
    }
  }
  read(data.nextCursor);
}

/** GET /api/wp-crm/reports/{organisationId}/{reportId} */
export async function walkGetReport(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/reports/{organisationId}/{reportId}', {
    params: {
      path: { organisationId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', reportId: 'rpt_01M80K2A3JX9E7F0QH4C2Y6V8T' },
    },
  });
  if (error) return readError(error);
  read(data.reportId);
  read(data.organisationId);
  read(data.status);
  read(data.requestedAt);
  read(data.requestedBy);
  read(data.startedAt);
  read(data.completedAt);
  read(data.rowCount);
  read(data.sizeBytes);
  read(data.format);
  read(data.expiresAt);
  read(data.error?.code);
  read(data.error?.message);
  read(data.filters);
  switch (data.reportType) {
    case 'CHAT':
      read(data.filters.isArchived);
      read(data.filters.isResolved);
      read(data.filters.isHighPriority);
      read(data.filters.isBotHandled);
      read(data.filters.isUnanswered);
      read(data.filters.isAssigned);
      read(data.filters.hasActiveAgentTransfer);
      read(data.filters.hasClosedBotSession);
      read(data.filters.assignedToUserIds);
      read(data.filters.assignedToTeamIds);
      read(data.filters.hasPrimaryAssignee);
      read(data.filters.hasNoPrimaryAssignee);
      read(data.filters.hasContacts);
      read(data.filters.chatContactSearch);
      read(data.filters.stateMachineIds);
      read(data.filters.currentStateIds);
      read(data.filters.hasStateMachines);
      read(data.filters.search);
      read(data.filters.chatType);
      read(data.filters.channelIds);
      read(data.filters.updatedAfter);
      read(data.filters.updatedBefore);
      read(data.filters.labelIds);
      read(data.filters.hasLabels);
      read(data.filters.allLabelIds);
      break;
    case 'CONTACT':
      read(data.filters.contactSearch);
      read(data.filters.contactChannelIds);
      read(data.filters.contactHasChats);
      read(data.filters.contactCreatedAfter);
      read(data.filters.contactCreatedBefore);
      read(data.filters.contactCreatedByUserIds);
      read(data.filters.contactCustomFieldRules);
      break;
    case 'TICKET':
      read(data.filters.ticketIsResolved);
      read(data.filters.ticketPriorityLevels);
      read(data.filters.ticketAssignedToUserIds);
      read(data.filters.ticketCreatedByUserIds);
      read(data.filters.ticketMachineIds);
      read(data.filters.ticketCreatedAfter);
      read(data.filters.ticketCreatedBefore);
      read(data.filters.ticketSearch);
      break;
    case 'CALL_LOG':
      read(data.filters.callDirection);
      read(data.filters.callStatuses);
      read(data.filters.callAgentUserIds);
      read(data.filters.callAccountId);
      read(data.filters.callInitiatedAfter);
      read(data.filters.callInitiatedBefore);
      read(data.filters.callPhoneSearch);
      read(data.filters.callHasChat);
      read(data.filters.callHasRecording);
      read(data.filters.callMinDurationSeconds);
      read(data.filters.callMaxDurationSeconds);
      read(data.filters.callHangupCauseSearch);
      read(data.filters.callContactSearch);
      break;
    case 'GOAL':
      read(data.filters.goalRecordedAfter);
      read(data.filters.goalRecordedBefore);
      read(data.filters.goalIds);
      read(data.filters.goalChannelIds);
      read(data.filters.goalTrackerValueRules);
      break;
    case 'BOOKING':
      read(data.filters.bookingTypes);
      read(data.filters.bookingStatuses);
      read(data.filters.bookingAgentUserIds);
      read(data.filters.bookingContactId);
      read(data.filters.bookingStartsOnOrAfter);
      read(data.filters.bookingStartsOnOrBefore);
      break;
    case 'FOLLOW_UPS':
      read(data.filters.followUpAgentUserIds);
      read(data.filters.followUpStatuses);
      read(data.filters.followUpKind);
      read(data.filters.followUpDueOnOrAfter);
      read(data.filters.followUpDueOnOrBefore);
      break;
    case 'SURVEY_RESPONSES':
      read(data.filters.surveyFormIds);
      read(data.filters.surveyStatuses);
      read(data.filters.surveySources);
      read(data.filters.surveyStartedOnOrAfter);
      read(data.filters.surveyStartedOnOrBefore);
      read(data.filters.surveyChannel);
      break;
    case 'FLOW_RESPONSES':
      read(data.filters.flowIds);
      read(data.filters.flowSources);
      read(data.filters.flowRespondedOnOrAfter);
      read(data.filters.flowRespondedOnOrBefore);
      break;
  }
}

/** GET /api/wp-crm/reports/{organisationId}/{reportId}/download */
export async function walkDownloadReport(): Promise<void> {
  const { data, error, response } = await client.GET('/api/wp-crm/reports/{organisationId}/{reportId}/download', {
    params: {
      path: { organisationId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', reportId: 'rpt_01M80K2A3JX9E7F0QH4C2Y6V8T' },
    },
  });
  if (error) return readError(error);
  read(response.status);
  if (response.status === 200) {
    read(data.url);
    read(data.expiresAt);
  }
}

/** GET /api/wp-crm/events/{orgId} */
export async function walkListEvents(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/events/{orgId}', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe' }, query: { limit: 20 } },
  });
  if (error) return readError(error);
  for (const event of data.events) {
    read(event.eventId);
    read(event.type);
    read(event.timestamp);
    read(event.data.timestamp);
    read(event.data.organisation_id);
    switch (event.data.type) {
      case 'group.created':
        read(event.data.request_id);
        read(event.data.chat_id);
        read(event.data.channel_id);
        read(event.data.subject);
        read(event.data.invite_link);
        break;
      case 'group.creation_failed':
        read(event.data.request_id);
        read(event.data.channel_id);
        read(event.data.error);
        break;
      case 'report.completed':
        read(event.data.report_id);
        read(event.data.report_type);
        read(event.data.schedule_id);
        read(event.data.row_count);
        break;
      case 'report.failed':
        read(event.data.report_id);
        read(event.data.report_type);
        read(event.data.schedule_id);
        read(event.data.error);
        break;
      case 'message.received':
        read(event.data.chat_id);
        read(event.data.message_id);
        read(event.data.external_message_id);
        read(event.data.from);
        read(event.data.message_type);
        read(event.data.text);
        read(event.data.error);
        break;
      case 'message.status':
        read(event.data.chat_id);
        read(event.data.message_id);
        read(event.data.status);
        read(event.data.error);
        read(event.data.participant);
        break;
      case 'group.participants_changed':
        read(event.data.chat_id);
        read(event.data.change);
        read(event.data.phone_numbers);
        read(event.data.user_ids);
        read(event.data.join_request_id);
        read(event.data.errors);
        break;
      case 'group.updated':
        read(event.data.chat_id);
        read(event.data.subject);
        read(event.data.description);
        read(event.data.group_status);
        read(event.data.errors);
        break;
      case 'group.deleted':
        read(event.data.chat_id);
        break;
    }
  }
  read(data.iterator);
  read(data.done);
}

/** POST /api/wp-crm/report-schedules/{organisationId} */
export async function walkCreateReportSchedule(): Promise<void> {
  const { data, error } = await client.POST('/api/wp-crm/report-schedules/{organisationId}', {
    params: { path: { organisationId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe' } },
    body: {
      reportType: 'TICKET',
      ticketPriorityLevels: ['HIGH', 'URGENT'],
      format: 'xlsx',
      schedule: { every: 'week', at: '07:30', timezone: 'Europe/Berlin', dayOfWeek: 1 },
      period: 'previous',
    },
  });
  if (error) return readError(error);
  read(data.scheduleId);
  read(data.organisationId);
  read(data.format);
  read(data.compression);
  read(data.schedule.every);
  read(data.schedule.at);
  read(data.schedule.timezone);
  read(data.schedule.dayOfWeek);
  read(data.schedule.dayOfMonth);
  read(data.period);
  read(data.status);
  read(data.nextRunAt);
  read(data.lastRunAt);
  read(data.lastReportId);
  read(data.createdAt);
  read(data.updatedAt);
  read(data.filters);
  switch (data.reportType) {
    case 'CHAT':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.isArchived);
      read(data.filters.isResolved);
      read(data.filters.isHighPriority);
      read(data.filters.isBotHandled);
      read(data.filters.isUnanswered);
      read(data.filters.isAssigned);
      read(data.filters.hasActiveAgentTransfer);
      read(data.filters.hasClosedBotSession);
      read(data.filters.assignedToUserIds);
      read(data.filters.assignedToTeamIds);
      read(data.filters.hasPrimaryAssignee);
      read(data.filters.hasNoPrimaryAssignee);
      read(data.filters.hasContacts);
      read(data.filters.chatContactSearch);
      read(data.filters.stateMachineIds);
      read(data.filters.currentStateIds);
      read(data.filters.hasStateMachines);
      read(data.filters.search);
      read(data.filters.chatType);
      read(data.filters.channelIds);
      read(data.filters.updatedAfter);
      read(data.filters.updatedBefore);
      read(data.filters.labelIds);
      read(data.filters.hasLabels);
      read(data.filters.allLabelIds);
      break;
    case 'CONTACT':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.contactSearch);
      read(data.filters.contactChannelIds);
      read(data.filters.contactHasChats);
      read(data.filters.contactCreatedAfter);
      read(data.filters.contactCreatedBefore);
      read(data.filters.contactCreatedByUserIds);
      read(data.filters.contactCustomFieldRules);
      break;
    case 'TICKET':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.ticketIsResolved);
      read(data.filters.ticketPriorityLevels);
      read(data.filters.ticketAssignedToUserIds);
      read(data.filters.ticketCreatedByUserIds);
      read(data.filters.ticketMachineIds);
      read(data.filters.ticketCreatedAfter);
      read(data.filters.ticketCreatedBefore);
      read(data.filters.ticketSearch);
      break;
    case 'CALL_LOG':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.callDirection);
      read(data.filters.callStatuses);
      read(data.filters.callAgentUserIds);
      read(data.filters.callAccountId);
      read(data.filters.callInitiatedAfter);
      read(data.filters.callInitiatedBefore);
      read(data.filters.callPhoneSearch);
      read(data.filters.callHasChat);
      read(data.filters.callHasRecording);
      read(data.filters.callMinDurationSeconds);
      read(data.filters.callMaxDurationSeconds);
      read(data.filters.callHangupCauseSearch);
      read(data.filters.callContactSearch);
      break;
    case 'GOAL':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.goalRecordedAfter);
      read(data.filters.goalRecordedBefore);
      read(data.filters.goalIds);
      read(data.filters.goalChannelIds);
      read(data.filters.goalTrackerValueRules);
      break;
    case 'BOOKING':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.bookingTypes);
      read(data.filters.bookingStatuses);
      read(data.filters.bookingAgentUserIds);
      read(data.filters.bookingContactId);
      read(data.filters.bookingStartsOnOrAfter);
      read(data.filters.bookingStartsOnOrBefore);
      break;
    case 'FOLLOW_UPS':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.followUpAgentUserIds);
      read(data.filters.followUpStatuses);
      read(data.filters.followUpKind);
      read(data.filters.followUpDueOnOrAfter);
      read(data.filters.followUpDueOnOrBefore);
      break;
    case 'SURVEY_RESPONSES':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.surveyFormIds);
      read(data.filters.surveyStatuses);
      read(data.filters.surveySources);
      read(data.filters.surveyStartedOnOrAfter);
      read(data.filters.surveyStartedOnOrBefore);
      read(data.filters.surveyChannel);
      break;
    case 'FLOW_RESPONSES':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.flowIds);
      read(data.filters.flowSources);
      read(data.filters.flowRespondedOnOrAfter);
      read(data.filters.flowRespondedOnOrBefore);
      break;
  }
}

/** GET /api/wp-crm/report-schedules/{organisationId} */
export async function walkListReportSchedules(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/report-schedules/{organisationId}', {
    params: { path: { organisationId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe' }, query: { limit: 20 } },
  });
  if (error) return readError(error);
  for (const schedule of data.schedules) {
    read(schedule.scheduleId);
    read(schedule.organisationId);
    read(schedule.format);
    read(schedule.compression);
    read(schedule.schedule.every);
    read(schedule.schedule.at);
    read(schedule.schedule.timezone);
    read(schedule.schedule.dayOfWeek);
    read(schedule.schedule.dayOfMonth);
    read(schedule.period);
    read(schedule.status);
    read(schedule.nextRunAt);
    read(schedule.lastRunAt);
    read(schedule.lastReportId);
    read(schedule.createdAt);
    read(schedule.updatedAt);
    read(schedule.filters);
    switch (schedule.reportType) {
      case 'CHAT':
        read(schedule.filters.format);
        read(schedule.filters.compression);
        read(schedule.filters.isArchived);
        read(schedule.filters.isResolved);
        read(schedule.filters.isHighPriority);
        read(schedule.filters.isBotHandled);
        read(schedule.filters.isUnanswered);
        read(schedule.filters.isAssigned);
        read(schedule.filters.hasActiveAgentTransfer);
        read(schedule.filters.hasClosedBotSession);
        read(schedule.filters.assignedToUserIds);
        read(schedule.filters.assignedToTeamIds);
        read(schedule.filters.hasPrimaryAssignee);
        read(schedule.filters.hasNoPrimaryAssignee);
        read(schedule.filters.hasContacts);
        read(schedule.filters.chatContactSearch);
        read(schedule.filters.stateMachineIds);
        read(schedule.filters.currentStateIds);
        read(schedule.filters.hasStateMachines);
        read(schedule.filters.search);
        read(schedule.filters.chatType);
        read(schedule.filters.channelIds);
        read(schedule.filters.updatedAfter);
        read(schedule.filters.updatedBefore);
        read(schedule.filters.labelIds);
        read(schedule.filters.hasLabels);
        read(schedule.filters.allLabelIds);
        break;
      case 'CONTACT':
        read(schedule.filters.format);
        read(schedule.filters.compression);
        read(schedule.filters.contactSearch);
        read(schedule.filters.contactChannelIds);
        read(schedule.filters.contactHasChats);
        read(schedule.filters.contactCreatedAfter);
        read(schedule.filters.contactCreatedBefore);
        read(schedule.filters.contactCreatedByUserIds);
        read(schedule.filters.contactCustomFieldRules);
        break;
      case 'TICKET':
        read(schedule.filters.format);
        read(schedule.filters.compression);
        read(schedule.filters.ticketIsResolved);
        read(schedule.filters.ticketPriorityLevels);
        read(schedule.filters.ticketAssignedToUserIds);
        read(schedule.filters.ticketCreatedByUserIds);
        read(schedule.filters.ticketMachineIds);
        read(schedule.filters.ticketCreatedAfter);
        read(schedule.filters.ticketCreatedBefore);
        read(schedule.filters.ticketSearch);
        break;
      case 'CALL_LOG':
        read(schedule.filters.format);
        read(schedule.filters.compression);
        read(schedule.filters.callDirection);
        read(schedule.filters.callStatuses);
        read(schedule.filters.callAgentUserIds);
        read(schedule.filters.callAccountId);
        read(schedule.filters.callInitiatedAfter);
        read(schedule.filters.callInitiatedBefore);
        read(schedule.filters.callPhoneSearch);
        read(schedule.filters.callHasChat);
        read(schedule.filters.callHasRecording);
        read(schedule.filters.callMinDurationSeconds);
        read(schedule.filters.callMaxDurationSeconds);
        read(schedule.filters.callHangupCauseSearch);
        read(schedule.filters.callContactSearch);
        break;
      case 'GOAL':
        read(schedule.filters.format);
        read(schedule.filters.compression);
        read(schedule.filters.goalRecordedAfter);
        read(schedule.filters.goalRecordedBefore);
        read(schedule.filters.goalIds);
        read(schedule.filters.goalChannelIds);
        read(schedule.filters.goalTrackerValueRules);
        break;
      case 'BOOKING':
        read(schedule.filters.format);
        read(schedule.filters.compression);
        read(schedule.filters.bookingTypes);
        read(schedule.filters.bookingStatuses);
        read(schedule.filters.bookingAgentUserIds);
        read(schedule.filters.bookingContactId);
        read(schedule.filters.bookingStartsOnOrAfter);
        read(schedule.filters.bookingStartsOnOrBefore);
        break;
      case 'FOLLOW_UPS':
        read(schedule.filters.format);
        read(schedule.filters.compression);
        read(schedule.filters.followUpAgentUserIds);
        read(schedule.filters.followUpStatuses);
        read(schedule.filters.followUpKind);
        read(schedule.filters.followUpDueOnOrAfter);
        read(schedule.filters.followUpDueOnOrBefore);
        break;
      case 'SURVEY_RESPONSES':
        read(schedule.filters.format);
        read(schedule.filters.compression);
        read(schedule.filters.surveyFormIds);
        read(schedule.filters.surveyStatuses);
        read(schedule.filters.surveySources);
        read(schedule.filters.surveyStartedOnOrAfter);
        read(schedule.filters.surveyStartedOnOrBefore);
        read(schedule.filters.surveyChannel);
        break;
      case 'FLOW_RESPONSES':
        read(schedule.filters.format);
        read(schedule.filters.compression);
        read(schedule.filters.flowIds);
        read(schedule.filters.flowSources);
        read(schedule.filters.flowRespondedOnOrAfter);
        read(schedule.filters.flowRespondedOnOrBefore);
        break;
    }
  }
  read(data.nextCursor);
}

/** DELETE /api/wp-crm/report-schedules/{organisationId}/{scheduleId} */
export async function walkDeleteReportSchedule(): Promise<void> {
  const { error, response } = await client.DELETE('/api/wp-crm/report-schedules/{organisationId}/{scheduleId}', {
    params: {
      path: { organisationId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', scheduleId: 'rsc_01M80K2B5D8F1H4K7N0Q3S6V9X' },
    },
  });
  if (error) return readError(error);
  read(response.status);
}

/** GET /api/wp-crm/report-schedules/{organisationId}/{scheduleId} */
export async function walkGetReportSchedule(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/report-schedules/{organisationId}/{scheduleId}', {
    params: {
      path: { organisationId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', scheduleId: 'rsc_01M80K2B5D8F1H4K7N0Q3S6V9X' },
    },
  });
  if (error) return readError(error);
  read(data.scheduleId);
  read(data.organisationId);
  read(data.format);
  read(data.compression);
  read(data.schedule.every);
  read(data.schedule.at);
  read(data.schedule.timezone);
  read(data.schedule.dayOfWeek);
  read(data.schedule.dayOfMonth);
  read(data.period);
  read(data.status);
  read(data.nextRunAt);
  read(data.lastRunAt);
  read(data.lastReportId);
  read(data.createdAt);
  read(data.updatedAt);
  read(data.filters);
  switch (data.reportType) {
    case 'CHAT':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.isArchived);
      read(data.filters.isResolved);
      read(data.filters.isHighPriority);
      read(data.filters.isBotHandled);
      read(data.filters.isUnanswered);
      read(data.filters.isAssigned);
      read(data.filters.hasActiveAgentTransfer);
      read(data.filters.hasClosedBotSession);
      read(data.filters.assignedToUserIds);
      read(data.filters.assignedToTeamIds);
      read(data.filters.hasPrimaryAssignee);
      read(data.filters.hasNoPrimaryAssignee);
      read(data.filters.hasContacts);
      read(data.filters.chatContactSearch);
      read(data.filters.stateMachineIds);
      read(data.filters.currentStateIds);
      read(data.filters.hasStateMachines);
      read(data.filters.search);
      read(data.filters.chatType);
      read(data.filters.channelIds);
      read(data.filters.updatedAfter);
      read(data.filters.updatedBefore);
      read(data.filters.labelIds);
      read(data.filters.hasLabels);
      read(data.filters.allLabelIds);
      break;
    case 'CONTACT':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.contactSearch);
      read(data.filters.contactChannelIds);
      read(data.filters.contactHasChats);
      read(data.filters.contactCreatedAfter);
      read(data.filters.contactCreatedBefore);
      read(data.filters.contactCreatedByUserIds);
      read(data.filters.contactCustomFieldRules);
      break;
    case 'TICKET':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.ticketIsResolved);
      read(data.filters.ticketPriorityLevels);
      read(data.filters.ticketAssignedToUserIds);
      read(data.filters.ticketCreatedByUserIds);
      read(data.filters.ticketMachineIds);
      read(data.filters.ticketCreatedAfter);
      read(data.filters.ticketCreatedBefore);
      read(data.filters.ticketSearch);
      break;
    case 'CALL_LOG':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.callDirection);
      read(data.filters.callStatuses);
      read(data.filters.callAgentUserIds);
      read(data.filters.callAccountId);
      read(data.filters.callInitiatedAfter);
      read(data.filters.callInitiatedBefore);
      read(data.filters.callPhoneSearch);
      read(data.filters.callHasChat);
      read(data.filters.callHasRecording);
      read(data.filters.callMinDurationSeconds);
      read(data.filters.callMaxDurationSeconds);
      read(data.filters.callHangupCauseSearch);
      read(data.filters.callContactSearch);
      break;
    case 'GOAL':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.goalRecordedAfter);
      read(data.filters.goalRecordedBefore);
      read(data.filters.goalIds);
      read(data.filters.goalChannelIds);
      read(data.filters.goalTrackerValueRules);
      break;
    case 'BOOKING':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.bookingTypes);
      read(data.filters.bookingStatuses);
      read(data.filters.bookingAgentUserIds);
      read(data.filters.bookingContactId);
      read(data.filters.bookingStartsOnOrAfter);
      read(data.filters.bookingStartsOnOrBefore);
      break;
    case 'FOLLOW_UPS':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.followUpAgentUserIds);
      read(data.filters.followUpStatuses);
      read(data.filters.followUpKind);
      read(data.filters.followUpDueOnOrAfter);
      read(data.filters.followUpDueOnOrBefore);
      break;
    case 'SURVEY_RESPONSES':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.surveyFormIds);
      read(data.filters.surveyStatuses);
      read(data.filters.surveySources);
      read(data.filters.surveyStartedOnOrAfter);
      read(data.filters.surveyStartedOnOrBefore);
      read(data.filters.surveyChannel);
      break;
    case 'FLOW_RESPONSES':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.flowIds);
      read(data.filters.flowSources);
      read(data.filters.flowRespondedOnOrAfter);
      read(data.filters.flowRespondedOnOrBefore);
      break;
  }
}

/** PATCH /api/wp-crm/report-schedules/{organisationId}/{scheduleId} */
export async function walkUpdateReportSchedule(): Promise<void> {
  const { data, error } = await client.PATCH('/api/wp-crm/report-schedules/{organisationId}/{scheduleId}', {
    params: {
      path: { organisationId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', scheduleId: 'rsc_01M80K2B5D8F1H4K7N0Q3S6V9X' },
    },
    body: { status: 'paused' },
  });
  if (error) return readError(error);
  read(data.scheduleId);
  read(data.organisationId);
  read(data.format);
  read(data.compression);
  read(data.schedule.every);
  read(data.schedule.at);
  read(data.schedule.timezone);
  read(data.schedule.dayOfWeek);
  read(data.schedule.dayOfMonth);
  read(data.period);
  read(data.status);
  read(data.nextRunAt);
  read(data.lastRunAt);
  read(data.lastReportId);
  read(data.createdAt);
  read(data.updatedAt);
  read(data.filters);
  switch (data.reportType) {
    case 'CHAT':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.isArchived);
      read(data.filters.isResolved);
      read(data.filters.isHighPriority);
      read(data.filters.isBotHandled);
      read(data.filters.isUnanswered);
      read(data.filters.isAssigned);
      read(data.filters.hasActiveAgentTransfer);
      read(data.filters.hasClosedBotSession);
      read(data.filters.assignedToUserIds);
      read(data.filters.assignedToTeamIds);
      read(data.filters.hasPrimaryAssignee);
      read(data.filters.hasNoPrimaryAssignee);
      read(data.filters.hasContacts);
      read(data.filters.chatContactSearch);
      read(data.filters.stateMachineIds);
      read(data.filters.currentStateIds);
      read(data.filters.hasStateMachines);
      read(data.filters.search);
      read(data.filters.chatType);
      read(data.filters.channelIds);
      read(data.filters.updatedAfter);
      read(data.filters.updatedBefore);
      read(data.filters.labelIds);
      read(data.filters.hasLabels);
      read(data.filters.allLabelIds);
      break;
    case 'CONTACT':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.contactSearch);
      read(data.filters.contactChannelIds);
      read(data.filters.contactHasChats);
      read(data.filters.contactCreatedAfter);
      read(data.filters.contactCreatedBefore);
      read(data.filters.contactCreatedByUserIds);
      read(data.filters.contactCustomFieldRules);
      break;
    case 'TICKET':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.ticketIsResolved);
      read(data.filters.ticketPriorityLevels);
      read(data.filters.ticketAssignedToUserIds);
      read(data.filters.ticketCreatedByUserIds);
      read(data.filters.ticketMachineIds);
      read(data.filters.ticketCreatedAfter);
      read(data.filters.ticketCreatedBefore);
      read(data.filters.ticketSearch);
      break;
    case 'CALL_LOG':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.callDirection);
      read(data.filters.callStatuses);
      read(data.filters.callAgentUserIds);
      read(data.filters.callAccountId);
      read(data.filters.callInitiatedAfter);
      read(data.filters.callInitiatedBefore);
      read(data.filters.callPhoneSearch);
      read(data.filters.callHasChat);
      read(data.filters.callHasRecording);
      read(data.filters.callMinDurationSeconds);
      read(data.filters.callMaxDurationSeconds);
      read(data.filters.callHangupCauseSearch);
      read(data.filters.callContactSearch);
      break;
    case 'GOAL':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.goalRecordedAfter);
      read(data.filters.goalRecordedBefore);
      read(data.filters.goalIds);
      read(data.filters.goalChannelIds);
      read(data.filters.goalTrackerValueRules);
      break;
    case 'BOOKING':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.bookingTypes);
      read(data.filters.bookingStatuses);
      read(data.filters.bookingAgentUserIds);
      read(data.filters.bookingContactId);
      read(data.filters.bookingStartsOnOrAfter);
      read(data.filters.bookingStartsOnOrBefore);
      break;
    case 'FOLLOW_UPS':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.followUpAgentUserIds);
      read(data.filters.followUpStatuses);
      read(data.filters.followUpKind);
      read(data.filters.followUpDueOnOrAfter);
      read(data.filters.followUpDueOnOrBefore);
      break;
    case 'SURVEY_RESPONSES':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.surveyFormIds);
      read(data.filters.surveyStatuses);
      read(data.filters.surveySources);
      read(data.filters.surveyStartedOnOrAfter);
      read(data.filters.surveyStartedOnOrBefore);
      read(data.filters.surveyChannel);
      break;
    case 'FLOW_RESPONSES':
      read(data.filters.format);
      read(data.filters.compression);
      read(data.filters.flowIds);
      read(data.filters.flowSources);
      read(data.filters.flowRespondedOnOrAfter);
      read(data.filters.flowRespondedOnOrBefore);
      break;
  }
}

/** POST /api/wp-crm/console-links/{orgId} */
export async function walkCreateConsoleLink(): Promise<void> {
  const { data, error } = await client.POST('/api/wp-crm/console-links/{orgId}', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe' } },
    body: { access: 'read' },
  });
  if (error) return readError(error);
  read(data.url);
  read(data.expiresAt);
}

/** POST /api/wp-crm/console-sessions */
export async function walkStartConsoleSession(): Promise<void> {
  const { data, error } = await client.POST('/api/wp-crm/console-sessions', {
    body: { code: 'q8YtV3nK0sLr5mJ2xWc9Pb7HfD4gZa1EuN6iOyTk3Qw' },
  });
  if (error) return readError(error);
  read(data.accessToken);
  read(data.tokenType);
  read(data.expiresIn);
  read(data.org);
  read(data.roles);
  read(data.access);
  read(data.sessionExpiresAt);
}

/** POST /api/wp-crm/console-sessions/refresh */
export async function walkRefreshConsoleSession(): Promise<void> {
  const { data, error } = await client.POST('/api/wp-crm/console-sessions/refresh', { body: {} });
  if (error) return readError(error);
  read(data.accessToken);
  read(data.tokenType);
  read(data.expiresIn);
  read(data.org);
  read(data.roles);
  read(data.access);
  read(data.sessionExpiresAt);
}

/** POST /api/wp-crm/console-sessions/sign-out */
export async function walkEndConsoleSession(): Promise<void> {
  const { data, error } = await client.POST('/api/wp-crm/console-sessions/sign-out', { body: {} });
  if (error) return readError(error);
  read(data.signedOut);
}

/** GET /api/wp-crm/console-overview/{orgId} */
export async function walkGetConsoleOverview(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/console-overview/{orgId}', {
    params: { path: { orgId: 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe' } },
  });
  if (error) return readError(error);
  read(data.from);
  read(data.to);
  for (const hour of data.hours) {
    read(hour.hour);
    read(hour.deliveries.succeeded);
    read(hour.deliveries.failed);
    read(hour.deliveries.pending);
    read(hour.groups.created);
    read(hour.groups.failed);
    read(hour.reports.completed);
    read(hour.reports.failed);
  }
  read(data.totals.deliveries.succeeded);
  read(data.totals.deliveries.failed);
  read(data.totals.deliveries.pending);
  read(data.totals.groups.created);
  read(data.totals.groups.failed);
  read(data.totals.reports.completed);
  read(data.totals.reports.failed);
  for (const latestEvent of data.latestEvents) {
    read(latestEvent.eventId);
    read(latestEvent.type);
    read(latestEvent.timestamp);
  }
  read(data.complete);
}

/** GET /api/wp-crm/console */
export async function walkGetConsole(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/console', { parseAs: 'text' });
  if (error) return readError(error);
  read(data);
}

/** GET /api/wp-crm/console/{page} */
export async function walkGetConsolePage(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/console/{page}', {
    params: { path: { page: '<page>' } },
    parseAs: 'text',
  });
  if (error) return readError(error);
  read(data);
}

/** GET /api/wp-crm/console/{page}/{id} */
export async function walkGetConsolePageItem(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/console/{page}/{id}', {
    params: { path: { page: '<page>', id: '<id>' } },
    parseAs: 'text',
  });
  if (error) return readError(error);
  read(data);
}

/** GET /api/wp-crm/console/scripts/{asset} */
export async function walkGetConsoleScript(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/console/scripts/{asset}', {
    params: { path: { asset: 'redoc.4f2a9c1e.js' } },
    parseAs: 'text',
  });
  if (error) return readError(error);
  read(data);
}

/** GET /api/wp-crm/console/styles/{asset} */
export async function walkGetConsoleStyles(): Promise<void> {
  const { data, error } = await client.GET('/api/wp-crm/console/styles/{asset}', {
    params: { path: { asset: 'redoc.4f2a9c1e.js' } },
    parseAs: 'text',
  });
  if (error) return readError(error);
  read(data);
}
