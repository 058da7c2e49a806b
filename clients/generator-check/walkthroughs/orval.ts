/**
 * CONTRACT §19 with orval's fetch client: every operation of openapi.json called through the client generated from the
 * served document, every field of every success body and every problem document read, with no cast.
 * `npm run test:generators` generates the client and type-checks this file (strict TypeScript 5.9); it is never run.
 */
import {
  approveJoinRequests,
  assignChat,
  createConsoleLink,
  createGroup,
  createReportSchedule,
  createWebhook,
  deleteGroup,
  deleteReportSchedule,
  deleteWebhook,
  downloadReport,
  endConsoleSession,
  type GatewayError,
  getChat,
  getConsole,
  getConsoleOverview,
  getConsolePage,
  getConsolePageItem,
  getConsoleScript,
  getConsoleStyles,
  getDocs,
  getDocsAsset,
  getGroup,
  getGroupCreationStatus,
  getHealth,
  getInviteLink,
  getJwks,
  getOpenApi,
  getReport,
  getReportSchedule,
  inviteParticipants,
  issueToken,
  listChannels,
  listDeliveries,
  listDeliveryAttempts,
  listEvents,
  listGroups,
  listJoinRequests,
  listMessages,
  listParticipants,
  listReceipts,
  listReportSchedules,
  listReports,
  listWebhooks,
  type Problem,
  receiveNetworkWebhook,
  redeliver,
  refreshConsoleSession,
  rejectJoinRequests,
  removeParticipants,
  requestReport,
  resetInviteLink,
  rotateWebhookSecret,
  sendMessage,
  sendWebhookTest,
  startConsoleSession,
  updateGroup,
  updateReportSchedule,
  updateWebhook,
  verifyNetworkWebhook,
} from '../generated/orval/client';
import { read } from './read';

const auth = { headers: { authorization: 'Bearer <accessToken>' } };

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
  const response = await issueToken(
    { clientId: 'cli_01M80K1GZ4XXJT0DBNYWF2ECVT', clientSecret: 'cs_LilbO3xq9Zr7VfT2nW8kPa5sYd1Hc4Ju6Ge0Mb' },
    auth,
  );
  if (response.status === 200) {
    read(response.data.accessToken);
    read(response.data.tokenType);
    read(response.data.expiresIn);
    read(response.data.org);
    read(response.data.roles);
  } else readError(response.data);
}

/** GET /api/wp-crm/.well-known/jwks.json */
export async function walkGetJwks(): Promise<void> {
  const response = await getJwks(auth);
  if (response.status === 200) {
    for (const key of response.data.keys) {
      read(key.kty);
      read(key.crv);
      read(key.x);
      read(key.y);
      read(key.kid);
      read(key.alg);
      read(key.use);
    }
  } else readError(response.data);
}

/** GET /api/wp-crm/health */
export async function walkGetHealth(): Promise<void> {
  const response = await getHealth(auth);
  if (response.status === 200) {
    read(response.data.status);
  } else readError(response.data);
}

/** GET /api/wp-crm/openapi.json */
export async function walkGetOpenApi(): Promise<void> {
  const response = await getOpenApi(auth);
  if (response.status === 200) {
    read(response.data.openapi);
    read(response.data.info.title);
    read(response.data.info.version);
    read(response.data.paths);
  } else readError(response.data);
}

/** GET /api/wp-crm/docs */
export async function walkGetDocs(): Promise<void> {
  const response = await getDocs(auth);
  if (response.status === 200) {
    read(response.data);
  } else readError(response.data);
}

/** GET /api/wp-crm/docs/{asset} */
export async function walkGetDocsAsset(): Promise<void> {
  const response = await getDocsAsset('redoc.4f2a9c1e.js', auth);
  if (response.status === 200) {
    read(response.data);
  } else readError(response.data);
}

/** GET /api/wp-crm/channels/{orgId} */
export async function walkListChannels(): Promise<void> {
  const response = await listChannels('e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', { limit: 20 }, auth);
  if (response.status === 200) {
    for (const channel of response.data.channels) {
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
    read(response.data.nextCursor);
  } else readError(response.data);
}

/** POST /api/wp-crm/groups/{orgId}/{chatId}/join-requests/approve */
export async function walkApproveJoinRequests(): Promise<void> {
  const response = await approveJoinRequests(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'cht_01M80K1R10W8DAZKGWSRRYPVK7',
    { joinRequestIds: ['MTIwMzYzMDI1MjQ2MTI1NDg2OjQ5MTUxMTIzNDU2Nzg'] },
    auth,
  );
  if (response.status === 200) {
    read(response.data.succeeded);
    for (const failedItem of response.data.failed) {
      read(failedItem.joinRequestId);
      read(failedItem.error.code);
      read(failedItem.error.message);
    }
  } else readError(response.data);
}

/** POST /api/wp-crm/chat-assignments/{orgId}/{chatId} */
export async function walkAssignChat(): Promise<void> {
  const response = await assignChat(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'cht_01M80K1R10W8DAZKGWSRRYPVK7',
    { userIds: ['usr_anna', 'usr_ben'], teamIds: ['team_support'], primaryUserId: 'usr_anna' },
    auth,
  );
  if (response.status === 200) {
    read(response.data.chatId);
    read(response.data.assignedUserIds);
    read(response.data.assignedTeamIds);
    read(response.data.primaryAssigneeUserId);
  } else readError(response.data);
}

/** POST /api/wp-crm/groups/{orgId} */
export async function walkCreateGroup(): Promise<void> {
  const response = await createGroup(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    {
      channelId: 'ch_01M80K1H7X9T4WQ2M5R8B3N6KD',
      subject: 'Launch crew',
      description: 'Everyone working on the November launch',
    },
    auth,
  );
  if (response.status === 202) {
    read(response.data.requestId);
    read(response.data.status);
    read(response.data.statusUrl);
  } else readError(response.data);
}

/** GET /api/wp-crm/groups/{orgId} */
export async function walkListGroups(): Promise<void> {
  const response = await listGroups('e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', { limit: 20 }, auth);
  if (response.status === 200) {
    for (const group of response.data.groups) {
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
    read(response.data.nextCursor);
  } else readError(response.data);
}

/** DELETE /api/wp-crm/groups/{orgId}/{chatId} */
export async function walkDeleteGroup(): Promise<void> {
  const response = await deleteGroup('e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', 'cht_01M80K1R10W8DAZKGWSRRYPVK7', auth);
  if (response.status === 202) {
    read(response.data.chatId);
    read(response.data.status);
  } else readError(response.data);
}

/** GET /api/wp-crm/groups/{orgId}/{chatId} */
export async function walkGetGroup(): Promise<void> {
  const response = await getGroup('e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', 'cht_01M80K1R10W8DAZKGWSRRYPVK7', auth);
  if (response.status === 200) {
    read(response.data.chatId);
    read(response.data.channelId);
    read(response.data.externalChatId);
    read(response.data.subject);
    read(response.data.description);
    read(response.data.groupStatus);
    read(response.data.joinApprovalRequired);
    read(response.data.participantCount);
    read(response.data.createdAt);
    read(response.data.updatedAt);
  } else readError(response.data);
}

/** PATCH /api/wp-crm/groups/{orgId}/{chatId} */
export async function walkUpdateGroup(): Promise<void> {
  const response = await updateGroup(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'cht_01M80K1R10W8DAZKGWSRRYPVK7',
    { subject: 'Launch crew (Q4)' },
    auth,
  );
  if (response.status === 202) {
    read(response.data.chatId);
    read(response.data.status);
  } else readError(response.data);
}

/** GET /api/wp-crm/chats/{orgId}/{chatId} */
export async function walkGetChat(): Promise<void> {
  const response = await getChat('e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', 'cht_01M80K1R10W8DAZKGWSRRYPVK7', auth);
  if (response.status === 200) {
    read(response.data.chatId);
    read(response.data.name);
    read(response.data.chatType);
    read(response.data.channelId);
    read(response.data.externalChatId);
    read(response.data.isArchived);
    read(response.data.isResolved);
    read(response.data.isHighPriority);
    read(response.data.autopilot);
    read(response.data.botJourneyStatus);
    read(response.data.lastMessageFrom);
    read(response.data.assignedUserIds);
    read(response.data.assignedTeamIds);
    read(response.data.primaryAssigneeUserId);
    read(response.data.contactIds);
    read(response.data.stateMachineIds);
    read(response.data.currentStateIds);
    read(response.data.labelIds);
    read(response.data.externalItems);
    read(response.data.createdAt);
    read(response.data.updatedAt);
    read(response.data.inviteLink);
    for (const participant of response.data.participants ?? []) {
      read(participant.phoneNumber);
      read(participant.userId);
      read(participant.joinedAt);
    }
    read(response.data.requireJoinApproval);
    read(response.data.description);
    read(response.data.groupStatus);
  } else readError(response.data);
}

/** GET /api/wp-crm/groups/{orgId}/creation-status/{requestId} */
export async function walkGetGroupCreationStatus(): Promise<void> {
  const response = await getGroupCreationStatus(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'grq_01M80K1R10W8DAZKGWSRRYPVK7',
    auth,
  );
  if (response.status === 200) {
    read(response.data.requestId);
    read(response.data.status);
    read(response.data.channelId);
    read(response.data.subject);
    read(response.data.chatId);
    read(response.data.inviteLink);
    read(response.data.error?.code);
    read(response.data.error?.message);
    read(response.data.createdAt);
    read(response.data.updatedAt);
  } else readError(response.data);
}

/** GET /api/wp-crm/groups/{orgId}/{chatId}/invite-link */
export async function walkGetInviteLink(): Promise<void> {
  const response = await getInviteLink('e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', 'cht_01M80K1R10W8DAZKGWSRRYPVK7', auth);
  if (response.status === 200) {
    read(response.data.inviteLink);
  } else readError(response.data);
}

/** POST /api/wp-crm/groups/{orgId}/{chatId}/participants */
export async function walkInviteParticipants(): Promise<void> {
  const response = await inviteParticipants(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'cht_01M80K1R10W8DAZKGWSRRYPVK7',
    { phoneNumbers: ['+4915112345678', '+4917698765432'] },
    auth,
  );
  if (response.status === 202) {
    for (const invitation of response.data.invitations) {
      read(invitation.phoneNumber);
      read(invitation.status);
      read(invitation.messageId);
      read(invitation.error?.code);
      read(invitation.error?.message);
    }
  } else readError(response.data);
}

/** GET /api/wp-crm/groups/{orgId}/{chatId}/participants */
export async function walkListParticipants(): Promise<void> {
  const response = await listParticipants(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'cht_01M80K1R10W8DAZKGWSRRYPVK7',
    auth,
  );
  if (response.status === 200) {
    for (const participant of response.data.participants) {
      read(participant.phoneNumber);
      read(participant.userId);
      read(participant.joinedAt);
    }
  } else readError(response.data);
}

/** DELETE /api/wp-crm/groups/{orgId}/{chatId}/participants */
export async function walkRemoveParticipants(): Promise<void> {
  const response = await removeParticipants(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'cht_01M80K1R10W8DAZKGWSRRYPVK7',
    { phoneNumbers: ['+4915112345678'] },
    auth,
  );
  if (response.status === 202) {
    read(response.data.status);
    read(response.data.phoneNumbers);
    read(response.data.userIds);
  } else readError(response.data);
}

/** GET /api/wp-crm/groups/{orgId}/{chatId}/join-requests */
export async function walkListJoinRequests(): Promise<void> {
  const response = await listJoinRequests(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'cht_01M80K1R10W8DAZKGWSRRYPVK7',
    { limit: 20 },
    auth,
  );
  if (response.status === 200) {
    for (const joinRequest of response.data.joinRequests) {
      read(joinRequest.joinRequestId);
      read(joinRequest.phoneNumber);
      read(joinRequest.userId);
      read(joinRequest.createdAt);
    }
    read(response.data.nextCursor);
  } else readError(response.data);
}

/** GET /api/wp-crm/chats/{orgId}/{chatId}/messages */
export async function walkListMessages(): Promise<void> {
  const response = await listMessages(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'cht_01M80K1R10W8DAZKGWSRRYPVK7',
    { limit: 20 },
    auth,
  );
  if (response.status === 200) {
    for (const message of response.data.messages) {
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
    read(response.data.nextCursor);
  } else readError(response.data);
}

/** GET /api/wp-crm/chats/{orgId}/{chatId}/messages/{messageId}/receipts */
export async function walkListReceipts(): Promise<void> {
  const response = await listReceipts(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'cht_01M80K1R10W8DAZKGWSRRYPVK7',
    'msg_01M80K1ZBDF09RFHCZD6P2TYGW',
    { limit: 20 },
    auth,
  );
  if (response.status === 200) {
    for (const receipt of response.data.receipts) {
      read(receipt.phoneNumber);
      read(receipt.userId);
      read(receipt.status);
      read(receipt.at);
    }
    read(response.data.nextCursor);
  } else readError(response.data);
}

/** POST /api/wp-crm/network/whatsapp/webhook */
export async function walkReceiveNetworkWebhook(): Promise<void> {
  const response = await receiveNetworkWebhook(
    {
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
    { headers: { ...auth.headers, ...{ 'X-Hub-Signature-256': 'sha256=<hex HMAC of the raw body>' } } },
  );
  if (response.status === 200) {
    read(response.data.received);
  } else readError(response.data);
}

/** GET /api/wp-crm/network/whatsapp/webhook */
export async function walkVerifyNetworkWebhook(): Promise<void> {
  const response = await verifyNetworkWebhook(
    { 'hub.mode': 'subscribe', 'hub.verify_token': '<hub.verify_token>', 'hub.challenge': '1158201444' },
    auth,
  );
  if (response.status === 200) {
    read(response.data);
  } else readError(response.data);
}

/** POST /api/wp-crm/groups/{orgId}/{chatId}/join-requests/reject */
export async function walkRejectJoinRequests(): Promise<void> {
  const response = await rejectJoinRequests(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'cht_01M80K1R10W8DAZKGWSRRYPVK7',
    { joinRequestIds: ['MTIwMzYzMDI1MjQ2MTI1NDg2OjQ5MTc2OTg3NjU0MzI'] },
    auth,
  );
  if (response.status === 200) {
    read(response.data.succeeded);
    for (const failedItem of response.data.failed) {
      read(failedItem.joinRequestId);
      read(failedItem.error.code);
      read(failedItem.error.message);
    }
  } else readError(response.data);
}

/** POST /api/wp-crm/groups/{orgId}/{chatId}/invite-link/reset */
export async function walkResetInviteLink(): Promise<void> {
  const response = await resetInviteLink(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'cht_01M80K1R10W8DAZKGWSRRYPVK7',
    auth,
  );
  if (response.status === 200) {
    read(response.data.inviteLink);
  } else readError(response.data);
}

/** POST /api/wp-crm/messaging/send-message */
export async function walkSendMessage(): Promise<void> {
  const response = await sendMessage({ chatId: 'cht_01M80K1R10W8DAZKGWSRRYPVK7', text: 'Welcome aboard!' }, auth);
  if (response.status === 202) {
    read(response.data.messageId);
    read(response.data.status);
  } else readError(response.data);
}

/** POST /api/wp-crm/webhooks/{orgId} */
export async function walkCreateWebhook(): Promise<void> {
  const response = await createWebhook(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    {
      url: 'https://crm.example.com/hooks/wp-crm',
      events: ['group.created', 'group.creation_failed', 'report.completed'],
      description: 'Production CRM',
    },
    auth,
  );
  if (response.status === 201) {
    read(response.data.webhookId);
    read(response.data.url);
    read(response.data.events);
    read(response.data.description);
    read(response.data.status);
    read(response.data.disabledReason);
    read(response.data.createdAt);
    read(response.data.secret);
  } else readError(response.data);
}

/** GET /api/wp-crm/webhooks/{orgId} */
export async function walkListWebhooks(): Promise<void> {
  const response = await listWebhooks('e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', { limit: 20 }, auth);
  if (response.status === 200) {
    for (const webhook of response.data.webhooks) {
      read(webhook.webhookId);
      read(webhook.url);
      read(webhook.events);
      read(webhook.description);
      read(webhook.status);
      read(webhook.disabledReason);
      read(webhook.createdAt);
    }
    read(response.data.nextCursor);
  } else readError(response.data);
}

/** DELETE /api/wp-crm/webhooks/{orgId}/{webhookId} */
export async function walkDeleteWebhook(): Promise<void> {
  const response = await deleteWebhook('e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', 'whk_01M80K2C7M4N8P1R5T9W3Y6B0D', auth);
  if (response.status === 204) {
    read(response.status);
  } else readError(response.data);
}

/** PATCH /api/wp-crm/webhooks/{orgId}/{webhookId} */
export async function walkUpdateWebhook(): Promise<void> {
  const response = await updateWebhook(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'whk_01M80K2C7M4N8P1R5T9W3Y6B0D',
    { status: 'active' },
    auth,
  );
  if (response.status === 200) {
    read(response.data.webhookId);
    read(response.data.url);
    read(response.data.events);
    read(response.data.description);
    read(response.data.status);
    read(response.data.disabledReason);
    read(response.data.createdAt);
  } else readError(response.data);
}

/** GET /api/wp-crm/webhooks/{orgId}/{webhookId}/deliveries */
export async function walkListDeliveries(): Promise<void> {
  const response = await listDeliveries(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'whk_01M80K2C7M4N8P1R5T9W3Y6B0D',
    { limit: 20 },
    auth,
  );
  if (response.status === 200) {
    for (const delivery of response.data.deliveries) {
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
    read(response.data.nextCursor);
  } else readError(response.data);
}

/** GET /api/wp-crm/webhooks/{orgId}/{webhookId}/deliveries/{deliveryId}/attempts */
export async function walkListDeliveryAttempts(): Promise<void> {
  const response = await listDeliveryAttempts(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'whk_01M80K2C7M4N8P1R5T9W3Y6B0D',
    'dlv_01M80K2F2H6K9M3P7S1V5X8Z4C',
    auth,
  );
  if (response.status === 200) {
    for (const attempt of response.data.attempts) {
      read(attempt.attempt);
      read(attempt.at);
      read(attempt.statusCode);
      read(attempt.durationMs);
      read(attempt.error);
      read(attempt.responseBody);
    }
  } else readError(response.data);
}

/** POST /api/wp-crm/webhooks/{orgId}/{webhookId}/deliveries/{deliveryId}/redeliver */
export async function walkRedeliver(): Promise<void> {
  const response = await redeliver(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'whk_01M80K2C7M4N8P1R5T9W3Y6B0D',
    'dlv_01M80K2F2H6K9M3P7S1V5X8Z4C',
    auth,
  );
  if (response.status === 202) {
    read(response.data.deliveryId);
    read(response.data.status);
  } else readError(response.data);
}

/** POST /api/wp-crm/webhooks/{orgId}/{webhookId}/rotate-secret */
export async function walkRotateWebhookSecret(): Promise<void> {
  const response = await rotateWebhookSecret(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'whk_01M80K2C7M4N8P1R5T9W3Y6B0D',
    auth,
  );
  if (response.status === 200) {
    read(response.data.secret);
  } else readError(response.data);
}

/** POST /api/wp-crm/webhooks/{orgId}/{webhookId}/test */
export async function walkSendWebhookTest(): Promise<void> {
  const response = await sendWebhookTest(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'whk_01M80K2C7M4N8P1R5T9W3Y6B0D',
    { type: 'group.created' },
    auth,
  );
  if (response.status === 202) {
    read(response.data.deliveryId);
    read(response.data.eventId);
  } else readError(response.data);
}

/** POST /api/wp-crm/reports/{organisationId} */
export async function walkRequestReport(): Promise<void> {
  const response = await requestReport(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    { reportType: 'CHAT', channelIds: ['ch_01M80K1H7X9T4WQ2M5R8B3N6KD'], updatedAfter: '2026-11-01' },
    auth,
  );
  if (response.status === 202) {
    read(response.data.reportId);
    read(response.data.organisationId);
    read(response.data.status);
    read(response.data.requestedAt);
    read(response.data.requestedBy);
    read(response.data.startedAt);
    read(response.data.completedAt);
    read(response.data.rowCount);
    read(response.data.sizeBytes);
    read(response.data.format);
    read(response.data.expiresAt);
    read(response.data.error?.code);
    read(response.data.error?.message);
    read(response.data.filters);
    switch (response.data.reportType) {
      case 'CHAT':
        read(response.data.filters.isArchived);
        read(response.data.filters.isResolved);
        read(response.data.filters.isHighPriority);
        read(response.data.filters.isBotHandled);
        read(response.data.filters.isUnanswered);
        read(response.data.filters.isAssigned);
        read(response.data.filters.hasActiveAgentTransfer);
        read(response.data.filters.hasClosedBotSession);
        read(response.data.filters.assignedToUserIds);
        read(response.data.filters.assignedToTeamIds);
        read(response.data.filters.hasPrimaryAssignee);
        read(response.data.filters.hasNoPrimaryAssignee);
        read(response.data.filters.hasContacts);
        read(response.data.filters.chatContactSearch);
        read(response.data.filters.stateMachineIds);
        read(response.data.filters.currentStateIds);
        read(response.data.filters.hasStateMachines);
        read(response.data.filters.search);
        read(response.data.filters.chatType);
        read(response.data.filters.channelIds);
        read(response.data.filters.updatedAfter);
        read(response.data.filters.updatedBefore);
        read(response.data.filters.labelIds);
        read(response.data.filters.hasLabels);
        read(response.data.filters.allLabelIds);
        break;
      case 'CONTACT':
        read(response.data.filters.contactSearch);
        read(response.data.filters.contactChannelIds);
        read(response.data.filters.contactHasChats);
        read(response.data.filters.contactCreatedAfter);
        read(response.data.filters.contactCreatedBefore);
        read(response.data.filters.contactCreatedByUserIds);
        read(response.data.filters.contactCustomFieldRules);
        break;
      case 'TICKET':
        read(response.data.filters.ticketIsResolved);
        read(response.data.filters.ticketPriorityLevels);
        read(response.data.filters.ticketAssignedToUserIds);
        read(response.data.filters.ticketCreatedByUserIds);
        read(response.data.filters.ticketMachineIds);
        read(response.data.filters.ticketCreatedAfter);
        read(response.data.filters.ticketCreatedBefore);
        read(response.data.filters.ticketSearch);
        break;
      case 'CALL_LOG':
        read(response.data.filters.callDirection);
        read(response.data.filters.callStatuses);
        read(response.data.filters.callAgentUserIds);
        read(response.data.filters.callAccountId);
        read(response.data.filters.callInitiatedAfter);
        read(response.data.filters.callInitiatedBefore);
        read(response.data.filters.callPhoneSearch);
        read(response.data.filters.callHasChat);
        read(response.data.filters.callHasRecording);
        read(response.data.filters.callMinDurationSeconds);
        read(response.data.filters.callMaxDurationSeconds);
        read(response.data.filters.callHangupCauseSearch);
        read(response.data.filters.callContactSearch);
        break;
      case 'GOAL':
        read(response.data.filters.goalRecordedAfter);
        read(response.data.filters.goalRecordedBefore);
        read(response.data.filters.goalIds);
        read(response.data.filters.goalChannelIds);
        read(response.data.filters.goalTrackerValueRules);
        break;
      case 'BOOKING':
        read(response.data.filters.bookingTypes);
        read(response.data.filters.bookingStatuses);
        read(response.data.filters.bookingAgentUserIds);
        read(response.data.filters.bookingContactId);
        read(response.data.filters.bookingStartsOnOrAfter);
        read(response.data.filters.bookingStartsOnOrBefore);
        break;
      case 'FOLLOW_UPS':
        read(response.data.filters.followUpAgentUserIds);
        read(response.data.filters.followUpStatuses);
        read(response.data.filters.followUpKind);
        read(response.data.filters.followUpDueOnOrAfter);
        read(response.data.filters.followUpDueOnOrBefore);
        break;
      case 'SURVEY_RESPONSES':
        read(response.data.filters.surveyFormIds);
        read(response.data.filters.surveyStatuses);
        read(response.data.filters.surveySources);
        read(response.data.filters.surveyStartedOnOrAfter);
        read(response.data.filters.surveyStartedOnOrBefore);
        read(response.data.filters.surveyChannel);
        break;
      case 'FLOW_RESPONSES':
        read(response.data.filters.flowIds);
        read(response.data.filters.flowSources);
        read(response.data.filters.flowRespondedOnOrAfter);
        read(response.data.filters.flowRespondedOnOrBefore);
        break;
    }
  } else readError(response.data);
}

/** GET /api/wp-crm/reports/{organisationId} */
export async function walkListReports(): Promise<void> {
  const response = await listReports('e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', { limit: 20 }, auth);
  if (response.status === 200) {
    for (const report of response.data.reports) {
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
    read(response.data.nextCursor);
  } else readError(response.data);
}

/** GET /api/wp-crm/reports/{organisationId}/{reportId} */
export async function walkGetReport(): Promise<void> {
  const response = await getReport('e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', 'rpt_01M80K2A3JX9E7F0QH4C2Y6V8T', auth);
  if (response.status === 200) {
    read(response.data.reportId);
    read(response.data.organisationId);
    read(response.data.status);
    read(response.data.requestedAt);
    read(response.data.requestedBy);
    read(response.data.startedAt);
    read(response.data.completedAt);
    read(response.data.rowCount);
    read(response.data.sizeBytes);
    read(response.data.format);
    read(response.data.expiresAt);
    read(response.data.error?.code);
    read(response.data.error?.message);
    read(response.data.filters);
    switch (response.data.reportType) {
      case 'CHAT':
        read(response.data.filters.isArchived);
        read(response.data.filters.isResolved);
        read(response.data.filters.isHighPriority);
        read(response.data.filters.isBotHandled);
        read(response.data.filters.isUnanswered);
        read(response.data.filters.isAssigned);
        read(response.data.filters.hasActiveAgentTransfer);
        read(response.data.filters.hasClosedBotSession);
        read(response.data.filters.assignedToUserIds);
        read(response.data.filters.assignedToTeamIds);
        read(response.data.filters.hasPrimaryAssignee);
        read(response.data.filters.hasNoPrimaryAssignee);
        read(response.data.filters.hasContacts);
        read(response.data.filters.chatContactSearch);
        read(response.data.filters.stateMachineIds);
        read(response.data.filters.currentStateIds);
        read(response.data.filters.hasStateMachines);
        read(response.data.filters.search);
        read(response.data.filters.chatType);
        read(response.data.filters.channelIds);
        read(response.data.filters.updatedAfter);
        read(response.data.filters.updatedBefore);
        read(response.data.filters.labelIds);
        read(response.data.filters.hasLabels);
        read(response.data.filters.allLabelIds);
        break;
      case 'CONTACT':
        read(response.data.filters.contactSearch);
        read(response.data.filters.contactChannelIds);
        read(response.data.filters.contactHasChats);
        read(response.data.filters.contactCreatedAfter);
        read(response.data.filters.contactCreatedBefore);
        read(response.data.filters.contactCreatedByUserIds);
        read(response.data.filters.contactCustomFieldRules);
        break;
      case 'TICKET':
        read(response.data.filters.ticketIsResolved);
        read(response.data.filters.ticketPriorityLevels);
        read(response.data.filters.ticketAssignedToUserIds);
        read(response.data.filters.ticketCreatedByUserIds);
        read(response.data.filters.ticketMachineIds);
        read(response.data.filters.ticketCreatedAfter);
        read(response.data.filters.ticketCreatedBefore);
        read(response.data.filters.ticketSearch);
        break;
      case 'CALL_LOG':
        read(response.data.filters.callDirection);
        read(response.data.filters.callStatuses);
        read(response.data.filters.callAgentUserIds);
        read(response.data.filters.callAccountId);
        read(response.data.filters.callInitiatedAfter);
        read(response.data.filters.callInitiatedBefore);
        read(response.data.filters.callPhoneSearch);
        read(response.data.filters.callHasChat);
        read(response.data.filters.callHasRecording);
        read(response.data.filters.callMinDurationSeconds);
        read(response.data.filters.callMaxDurationSeconds);
        read(response.data.filters.callHangupCauseSearch);
        read(response.data.filters.callContactSearch);
        break;
      case 'GOAL':
        read(response.data.filters.goalRecordedAfter);
        read(response.data.filters.goalRecordedBefore);
        read(response.data.filters.goalIds);
        read(response.data.filters.goalChannelIds);
        read(response.data.filters.goalTrackerValueRules);
        break;
      case 'BOOKING':
        read(response.data.filters.bookingTypes);
        read(response.data.filters.bookingStatuses);
        read(response.data.filters.bookingAgentUserIds);
        read(response.data.filters.bookingContactId);
        read(response.data.filters.bookingStartsOnOrAfter);
        read(response.data.filters.bookingStartsOnOrBefore);
        break;
      case 'FOLLOW_UPS':
        read(response.data.filters.followUpAgentUserIds);
        read(response.data.filters.followUpStatuses);
        read(response.data.filters.followUpKind);
        read(response.data.filters.followUpDueOnOrAfter);
        read(response.data.filters.followUpDueOnOrBefore);
        break;
      case 'SURVEY_RESPONSES':
        read(response.data.filters.surveyFormIds);
        read(response.data.filters.surveyStatuses);
        read(response.data.filters.surveySources);
        read(response.data.filters.surveyStartedOnOrAfter);
        read(response.data.filters.surveyStartedOnOrBefore);
        read(response.data.filters.surveyChannel);
        break;
      case 'FLOW_RESPONSES':
        read(response.data.filters.flowIds);
        read(response.data.filters.flowSources);
        read(response.data.filters.flowRespondedOnOrAfter);
        read(response.data.filters.flowRespondedOnOrBefore);
        break;
    }
  } else readError(response.data);
}

/** GET /api/wp-crm/reports/{organisationId}/{reportId}/download */
export async function walkDownloadReport(): Promise<void> {
  const response = await downloadReport(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'rpt_01M80K2A3JX9E7F0QH4C2Y6V8T',
    {},
    auth,
  );
  if (response.status === 200) {
    read(response.data.url);
    read(response.data.expiresAt);
  } else if (response.status === 303) {
    read(response.status);
  } else readError(response.data);
}

/** GET /api/wp-crm/events/{orgId} */
export async function walkListEvents(): Promise<void> {
  const response = await listEvents('e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', { limit: 20 }, auth);
  if (response.status === 200) {
    for (const event of response.data.events) {
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
    read(response.data.iterator);
    read(response.data.done);
  } else readError(response.data);
}

/** POST /api/wp-crm/report-schedules/{organisationId} */
export async function walkCreateReportSchedule(): Promise<void> {
  const response = await createReportSchedule(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    {
      reportType: 'TICKET',
      ticketPriorityLevels: ['HIGH', 'URGENT'],
      format: 'xlsx',
      schedule: { every: 'week', at: '07:30', timezone: 'Europe/Berlin', dayOfWeek: 1 },
      period: 'previous',
    },
    auth,
  );
  if (response.status === 201) {
    read(response.data.scheduleId);
    read(response.data.organisationId);
    read(response.data.format);
    read(response.data.compression);
    read(response.data.schedule.every);
    read(response.data.schedule.at);
    read(response.data.schedule.timezone);
    read(response.data.schedule.dayOfWeek);
    read(response.data.schedule.dayOfMonth);
    read(response.data.period);
    read(response.data.status);
    read(response.data.nextRunAt);
    read(response.data.lastRunAt);
    read(response.data.lastReportId);
    read(response.data.createdAt);
    read(response.data.updatedAt);
    read(response.data.filters);
    switch (response.data.reportType) {
      case 'CHAT':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.isArchived);
        read(response.data.filters.isResolved);
        read(response.data.filters.isHighPriority);
        read(response.data.filters.isBotHandled);
        read(response.data.filters.isUnanswered);
        read(response.data.filters.isAssigned);
        read(response.data.filters.hasActiveAgentTransfer);
        read(response.data.filters.hasClosedBotSession);
        read(response.data.filters.assignedToUserIds);
        read(response.data.filters.assignedToTeamIds);
        read(response.data.filters.hasPrimaryAssignee);
        read(response.data.filters.hasNoPrimaryAssignee);
        read(response.data.filters.hasContacts);
        read(response.data.filters.chatContactSearch);
        read(response.data.filters.stateMachineIds);
        read(response.data.filters.currentStateIds);
        read(response.data.filters.hasStateMachines);
        read(response.data.filters.search);
        read(response.data.filters.chatType);
        read(response.data.filters.channelIds);
        read(response.data.filters.updatedAfter);
        read(response.data.filters.updatedBefore);
        read(response.data.filters.labelIds);
        read(response.data.filters.hasLabels);
        read(response.data.filters.allLabelIds);
        break;
      case 'CONTACT':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.contactSearch);
        read(response.data.filters.contactChannelIds);
        read(response.data.filters.contactHasChats);
        read(response.data.filters.contactCreatedAfter);
        read(response.data.filters.contactCreatedBefore);
        read(response.data.filters.contactCreatedByUserIds);
        read(response.data.filters.contactCustomFieldRules);
        break;
      case 'TICKET':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.ticketIsResolved);
        read(response.data.filters.ticketPriorityLevels);
        read(response.data.filters.ticketAssignedToUserIds);
        read(response.data.filters.ticketCreatedByUserIds);
        read(response.data.filters.ticketMachineIds);
        read(response.data.filters.ticketCreatedAfter);
        read(response.data.filters.ticketCreatedBefore);
        read(response.data.filters.ticketSearch);
        break;
      case 'CALL_LOG':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.callDirection);
        read(response.data.filters.callStatuses);
        read(response.data.filters.callAgentUserIds);
        read(response.data.filters.callAccountId);
        read(response.data.filters.callInitiatedAfter);
        read(response.data.filters.callInitiatedBefore);
        read(response.data.filters.callPhoneSearch);
        read(response.data.filters.callHasChat);
        read(response.data.filters.callHasRecording);
        read(response.data.filters.callMinDurationSeconds);
        read(response.data.filters.callMaxDurationSeconds);
        read(response.data.filters.callHangupCauseSearch);
        read(response.data.filters.callContactSearch);
        break;
      case 'GOAL':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.goalRecordedAfter);
        read(response.data.filters.goalRecordedBefore);
        read(response.data.filters.goalIds);
        read(response.data.filters.goalChannelIds);
        read(response.data.filters.goalTrackerValueRules);
        break;
      case 'BOOKING':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.bookingTypes);
        read(response.data.filters.bookingStatuses);
        read(response.data.filters.bookingAgentUserIds);
        read(response.data.filters.bookingContactId);
        read(response.data.filters.bookingStartsOnOrAfter);
        read(response.data.filters.bookingStartsOnOrBefore);
        break;
      case 'FOLLOW_UPS':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.followUpAgentUserIds);
        read(response.data.filters.followUpStatuses);
        read(response.data.filters.followUpKind);
        read(response.data.filters.followUpDueOnOrAfter);
        read(response.data.filters.followUpDueOnOrBefore);
        break;
      case 'SURVEY_RESPONSES':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.surveyFormIds);
        read(response.data.filters.surveyStatuses);
        read(response.data.filters.surveySources);
        read(response.data.filters.surveyStartedOnOrAfter);
        read(response.data.filters.surveyStartedOnOrBefore);
        read(response.data.filters.surveyChannel);
        break;
      case 'FLOW_RESPONSES':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.flowIds);
        read(response.data.filters.flowSources);
        read(response.data.filters.flowRespondedOnOrAfter);
        read(response.data.filters.flowRespondedOnOrBefore);
        break;
    }
  } else readError(response.data);
}

/** GET /api/wp-crm/report-schedules/{organisationId} */
export async function walkListReportSchedules(): Promise<void> {
  const response = await listReportSchedules('e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', { limit: 20 }, auth);
  if (response.status === 200) {
    for (const schedule of response.data.schedules) {
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
    read(response.data.nextCursor);
  } else readError(response.data);
}

/** DELETE /api/wp-crm/report-schedules/{organisationId}/{scheduleId} */
export async function walkDeleteReportSchedule(): Promise<void> {
  const response = await deleteReportSchedule(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'rsc_01M80K2B5D8F1H4K7N0Q3S6V9X',
    auth,
  );
  if (response.status === 204) {
    read(response.status);
  } else readError(response.data);
}

/** GET /api/wp-crm/report-schedules/{organisationId}/{scheduleId} */
export async function walkGetReportSchedule(): Promise<void> {
  const response = await getReportSchedule(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'rsc_01M80K2B5D8F1H4K7N0Q3S6V9X',
    auth,
  );
  if (response.status === 200) {
    read(response.data.scheduleId);
    read(response.data.organisationId);
    read(response.data.format);
    read(response.data.compression);
    read(response.data.schedule.every);
    read(response.data.schedule.at);
    read(response.data.schedule.timezone);
    read(response.data.schedule.dayOfWeek);
    read(response.data.schedule.dayOfMonth);
    read(response.data.period);
    read(response.data.status);
    read(response.data.nextRunAt);
    read(response.data.lastRunAt);
    read(response.data.lastReportId);
    read(response.data.createdAt);
    read(response.data.updatedAt);
    read(response.data.filters);
    switch (response.data.reportType) {
      case 'CHAT':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.isArchived);
        read(response.data.filters.isResolved);
        read(response.data.filters.isHighPriority);
        read(response.data.filters.isBotHandled);
        read(response.data.filters.isUnanswered);
        read(response.data.filters.isAssigned);
        read(response.data.filters.hasActiveAgentTransfer);
        read(response.data.filters.hasClosedBotSession);
        read(response.data.filters.assignedToUserIds);
        read(response.data.filters.assignedToTeamIds);
        read(response.data.filters.hasPrimaryAssignee);
        read(response.data.filters.hasNoPrimaryAssignee);
        read(response.data.filters.hasContacts);
        read(response.data.filters.chatContactSearch);
        read(response.data.filters.stateMachineIds);
        read(response.data.filters.currentStateIds);
        read(response.data.filters.hasStateMachines);
        read(response.data.filters.search);
        read(response.data.filters.chatType);
        read(response.data.filters.channelIds);
        read(response.data.filters.updatedAfter);
        read(response.data.filters.updatedBefore);
        read(response.data.filters.labelIds);
        read(response.data.filters.hasLabels);
        read(response.data.filters.allLabelIds);
        break;
      case 'CONTACT':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.contactSearch);
        read(response.data.filters.contactChannelIds);
        read(response.data.filters.contactHasChats);
        read(response.data.filters.contactCreatedAfter);
        read(response.data.filters.contactCreatedBefore);
        read(response.data.filters.contactCreatedByUserIds);
        read(response.data.filters.contactCustomFieldRules);
        break;
      case 'TICKET':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.ticketIsResolved);
        read(response.data.filters.ticketPriorityLevels);
        read(response.data.filters.ticketAssignedToUserIds);
        read(response.data.filters.ticketCreatedByUserIds);
        read(response.data.filters.ticketMachineIds);
        read(response.data.filters.ticketCreatedAfter);
        read(response.data.filters.ticketCreatedBefore);
        read(response.data.filters.ticketSearch);
        break;
      case 'CALL_LOG':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.callDirection);
        read(response.data.filters.callStatuses);
        read(response.data.filters.callAgentUserIds);
        read(response.data.filters.callAccountId);
        read(response.data.filters.callInitiatedAfter);
        read(response.data.filters.callInitiatedBefore);
        read(response.data.filters.callPhoneSearch);
        read(response.data.filters.callHasChat);
        read(response.data.filters.callHasRecording);
        read(response.data.filters.callMinDurationSeconds);
        read(response.data.filters.callMaxDurationSeconds);
        read(response.data.filters.callHangupCauseSearch);
        read(response.data.filters.callContactSearch);
        break;
      case 'GOAL':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.goalRecordedAfter);
        read(response.data.filters.goalRecordedBefore);
        read(response.data.filters.goalIds);
        read(response.data.filters.goalChannelIds);
        read(response.data.filters.goalTrackerValueRules);
        break;
      case 'BOOKING':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.bookingTypes);
        read(response.data.filters.bookingStatuses);
        read(response.data.filters.bookingAgentUserIds);
        read(response.data.filters.bookingContactId);
        read(response.data.filters.bookingStartsOnOrAfter);
        read(response.data.filters.bookingStartsOnOrBefore);
        break;
      case 'FOLLOW_UPS':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.followUpAgentUserIds);
        read(response.data.filters.followUpStatuses);
        read(response.data.filters.followUpKind);
        read(response.data.filters.followUpDueOnOrAfter);
        read(response.data.filters.followUpDueOnOrBefore);
        break;
      case 'SURVEY_RESPONSES':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.surveyFormIds);
        read(response.data.filters.surveyStatuses);
        read(response.data.filters.surveySources);
        read(response.data.filters.surveyStartedOnOrAfter);
        read(response.data.filters.surveyStartedOnOrBefore);
        read(response.data.filters.surveyChannel);
        break;
      case 'FLOW_RESPONSES':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.flowIds);
        read(response.data.filters.flowSources);
        read(response.data.filters.flowRespondedOnOrAfter);
        read(response.data.filters.flowRespondedOnOrBefore);
        break;
    }
  } else readError(response.data);
}

/** PATCH /api/wp-crm/report-schedules/{organisationId}/{scheduleId} */
export async function walkUpdateReportSchedule(): Promise<void> {
  const response = await updateReportSchedule(
    'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe',
    'rsc_01M80K2B5D8F1H4K7N0Q3S6V9X',
    { status: 'paused' },
    auth,
  );
  if (response.status === 200) {
    read(response.data.scheduleId);
    read(response.data.organisationId);
    read(response.data.format);
    read(response.data.compression);
    read(response.data.schedule.every);
    read(response.data.schedule.at);
    read(response.data.schedule.timezone);
    read(response.data.schedule.dayOfWeek);
    read(response.data.schedule.dayOfMonth);
    read(response.data.period);
    read(response.data.status);
    read(response.data.nextRunAt);
    read(response.data.lastRunAt);
    read(response.data.lastReportId);
    read(response.data.createdAt);
    read(response.data.updatedAt);
    read(response.data.filters);
    switch (response.data.reportType) {
      case 'CHAT':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.isArchived);
        read(response.data.filters.isResolved);
        read(response.data.filters.isHighPriority);
        read(response.data.filters.isBotHandled);
        read(response.data.filters.isUnanswered);
        read(response.data.filters.isAssigned);
        read(response.data.filters.hasActiveAgentTransfer);
        read(response.data.filters.hasClosedBotSession);
        read(response.data.filters.assignedToUserIds);
        read(response.data.filters.assignedToTeamIds);
        read(response.data.filters.hasPrimaryAssignee);
        read(response.data.filters.hasNoPrimaryAssignee);
        read(response.data.filters.hasContacts);
        read(response.data.filters.chatContactSearch);
        read(response.data.filters.stateMachineIds);
        read(response.data.filters.currentStateIds);
        read(response.data.filters.hasStateMachines);
        read(response.data.filters.search);
        read(response.data.filters.chatType);
        read(response.data.filters.channelIds);
        read(response.data.filters.updatedAfter);
        read(response.data.filters.updatedBefore);
        read(response.data.filters.labelIds);
        read(response.data.filters.hasLabels);
        read(response.data.filters.allLabelIds);
        break;
      case 'CONTACT':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.contactSearch);
        read(response.data.filters.contactChannelIds);
        read(response.data.filters.contactHasChats);
        read(response.data.filters.contactCreatedAfter);
        read(response.data.filters.contactCreatedBefore);
        read(response.data.filters.contactCreatedByUserIds);
        read(response.data.filters.contactCustomFieldRules);
        break;
      case 'TICKET':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.ticketIsResolved);
        read(response.data.filters.ticketPriorityLevels);
        read(response.data.filters.ticketAssignedToUserIds);
        read(response.data.filters.ticketCreatedByUserIds);
        read(response.data.filters.ticketMachineIds);
        read(response.data.filters.ticketCreatedAfter);
        read(response.data.filters.ticketCreatedBefore);
        read(response.data.filters.ticketSearch);
        break;
      case 'CALL_LOG':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.callDirection);
        read(response.data.filters.callStatuses);
        read(response.data.filters.callAgentUserIds);
        read(response.data.filters.callAccountId);
        read(response.data.filters.callInitiatedAfter);
        read(response.data.filters.callInitiatedBefore);
        read(response.data.filters.callPhoneSearch);
        read(response.data.filters.callHasChat);
        read(response.data.filters.callHasRecording);
        read(response.data.filters.callMinDurationSeconds);
        read(response.data.filters.callMaxDurationSeconds);
        read(response.data.filters.callHangupCauseSearch);
        read(response.data.filters.callContactSearch);
        break;
      case 'GOAL':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.goalRecordedAfter);
        read(response.data.filters.goalRecordedBefore);
        read(response.data.filters.goalIds);
        read(response.data.filters.goalChannelIds);
        read(response.data.filters.goalTrackerValueRules);
        break;
      case 'BOOKING':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.bookingTypes);
        read(response.data.filters.bookingStatuses);
        read(response.data.filters.bookingAgentUserIds);
        read(response.data.filters.bookingContactId);
        read(response.data.filters.bookingStartsOnOrAfter);
        read(response.data.filters.bookingStartsOnOrBefore);
        break;
      case 'FOLLOW_UPS':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.followUpAgentUserIds);
        read(response.data.filters.followUpStatuses);
        read(response.data.filters.followUpKind);
        read(response.data.filters.followUpDueOnOrAfter);
        read(response.data.filters.followUpDueOnOrBefore);
        break;
      case 'SURVEY_RESPONSES':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.surveyFormIds);
        read(response.data.filters.surveyStatuses);
        read(response.data.filters.surveySources);
        read(response.data.filters.surveyStartedOnOrAfter);
        read(response.data.filters.surveyStartedOnOrBefore);
        read(response.data.filters.surveyChannel);
        break;
      case 'FLOW_RESPONSES':
        read(response.data.filters.format);
        read(response.data.filters.compression);
        read(response.data.filters.flowIds);
        read(response.data.filters.flowSources);
        read(response.data.filters.flowRespondedOnOrAfter);
        read(response.data.filters.flowRespondedOnOrBefore);
        break;
    }
  } else readError(response.data);
}

/** POST /api/wp-crm/console-links/{orgId} */
export async function walkCreateConsoleLink(): Promise<void> {
  const response = await createConsoleLink('e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', { access: 'read' }, auth);
  if (response.status === 201) {
    read(response.data.url);
    read(response.data.expiresAt);
  } else readError(response.data);
}

/** POST /api/wp-crm/console-sessions */
export async function walkStartConsoleSession(): Promise<void> {
  const response = await startConsoleSession({ code: 'q8YtV3nK0sLr5mJ2xWc9Pb7HfD4gZa1EuN6iOyTk3Qw' }, auth);
  if (response.status === 201) {
    read(response.data.accessToken);
    read(response.data.tokenType);
    read(response.data.expiresIn);
    read(response.data.org);
    read(response.data.roles);
    read(response.data.access);
    read(response.data.sessionExpiresAt);
  } else readError(response.data);
}

/** POST /api/wp-crm/console-sessions/refresh */
export async function walkRefreshConsoleSession(): Promise<void> {
  const response = await refreshConsoleSession({}, auth);
  if (response.status === 200) {
    read(response.data.accessToken);
    read(response.data.tokenType);
    read(response.data.expiresIn);
    read(response.data.org);
    read(response.data.roles);
    read(response.data.access);
    read(response.data.sessionExpiresAt);
  } else readError(response.data);
}

/** POST /api/wp-crm/console-sessions/sign-out */
export async function walkEndConsoleSession(): Promise<void> {
  const response = await endConsoleSession({}, auth);
  if (response.status === 200) {
    read(response.data.signedOut);
  } else readError(response.data);
}

/** GET /api/wp-crm/console-overview/{orgId} */
export async function walkGetConsoleOverview(): Promise<void> {
  const response = await getConsoleOverview('e4c4c399-93bc-4d79-aadf-6968fa1c7bbe', auth);
  if (response.status === 200) {
    read(response.data.from);
    read(response.data.to);
    for (const hour of response.data.hours) {
      read(hour.hour);
      read(hour.deliveries.succeeded);
      read(hour.deliveries.failed);
      read(hour.deliveries.pending);
      read(hour.groups.created);
      read(hour.groups.failed);
      read(hour.reports.completed);
      read(hour.reports.failed);
    }
    read(response.data.totals.deliveries.succeeded);
    read(response.data.totals.deliveries.failed);
    read(response.data.totals.deliveries.pending);
    read(response.data.totals.groups.created);
    read(response.data.totals.groups.failed);
    read(response.data.totals.reports.completed);
    read(response.data.totals.reports.failed);
    for (const latestEvent of response.data.latestEvents) {
      read(latestEvent.eventId);
      read(latestEvent.type);
      read(latestEvent.timestamp);
    }
    read(response.data.complete);
  } else readError(response.data);
}

/** GET /api/wp-crm/console */
export async function walkGetConsole(): Promise<void> {
  const response = await getConsole(auth);
  if (response.status === 200) {
    read(response.data);
  } else readError(response.data);
}

/** GET /api/wp-crm/console/{page} */
export async function walkGetConsolePage(): Promise<void> {
  const response = await getConsolePage('<page>', auth);
  if (response.status === 200) {
    read(response.data);
  } else readError(response.data);
}

/** GET /api/wp-crm/console/{page}/{id} */
export async function walkGetConsolePageItem(): Promise<void> {
  const response = await getConsolePageItem('<page>', '<id>', auth);
  if (response.status === 200) {
    read(response.data);
  } else readError(response.data);
}

/** GET /api/wp-crm/console/scripts/{asset} */
export async function walkGetConsoleScript(): Promise<void> {
  const response = await getConsoleScript('redoc.4f2a9c1e.js', auth);
  if (response.status === 200) {
    read(response.data);
  } else readError(response.data);
}

/** GET /api/wp-crm/console/styles/{asset} */
export async function walkGetConsoleStyles(): Promise<void> {
  const response = await getConsoleStyles('redoc.4f2a9c1e.js', auth);
  if (response.status === 200) {
    read(response.data);
  } else readError(response.data);
}
