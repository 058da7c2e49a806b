import type { EventType } from '#shared/events/catalog';

/**
 * Realistic examples for openapi.json (CONTRACT §19): one request body and one answer per success status of every
 * operation, and one body per event. A unit test validates each against its schema, so they cannot drift.
 */
const ORG = 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe';
const CLIENT = 'cli_01M80K1GZ4XXJT0DBNYWF2ECVT';
const CHANNEL = 'ch_01M80K1H7X9T4WQ2M5R8B3N6KD';
const REQUEST = 'grq_01M80K1R10W8DAZKGWSRRYPVK7';
const CHAT = 'cht_01M80K1R10W8DAZKGWSRRYPVK7';
const GROUP = '120363025246125486@g.us';
const MESSAGE = 'msg_01M80K1ZBDF09RFHCZD6P2TYGW';
const REPORT = 'rpt_01M80K2A3JX9E7F0QH4C2Y6V8T';
const WEBHOOK = 'whk_01M80K2C7M4N8P1R5T9W3Y6B0D';
const SCHEDULE = 'rsc_01M80K2B5D8F1H4K7N0Q3S6V9X';
const DELIVERY = 'dlv_01M80K2F2H6K9M3P7S1V5X8Z4C';
const EVENT = 'evt_01M80K2E5G9J2L6N0Q4T7W1Y3A';
const INVITE = 'https://chat.whatsapp.com/GMCKU6qNpC17Tefrw6G98Y';
const BASE = '/api/wp-crm';
const AT = '2026-11-24T09:30:00.000Z';
const LATER = '2026-11-24T09:30:04.512Z';

export const PATH_PARAMETER_EXAMPLES: Record<string, string> = {
  orgId: ORG,
  organisationId: ORG,
  requestId: REQUEST,
  chatId: CHAT,
  reportId: REPORT,
  webhookId: WEBHOOK,
  scheduleId: SCHEDULE,
  deliveryId: DELIVERY,
  messageId: MESSAGE,
  asset: 'redoc.4f2a9c1e.js',
  page: 'groups',
  id: CHAT,
};

const channel = {
  channelId: CHANNEL,
  name: 'Demo WhatsApp (official)',
  type: 'MESSAGING_OFFICIAL',
  phoneNumber: '+4915100000001',
  officialBusinessAccount: true,
  groupsEligible: true,
  inviteTemplate: { name: 'launch_group_invite', language: 'de' },
  createdAt: '2026-11-20T08:00:00.000Z',
};

const group = {
  chatId: CHAT,
  channelId: CHANNEL,
  externalChatId: GROUP,
  subject: 'Launch crew',
  description: 'Everyone working on the November launch',
  groupStatus: 'active',
  joinApprovalRequired: true,
  participantCount: 2,
  createdAt: AT,
  updatedAt: LATER,
};

const participants = [
  { phoneNumber: '+4915112345678', userId: null, joinedAt: '2026-11-24T09:41:10.000Z' },
  { phoneNumber: null, userId: 'BSUID.4a1f9c2e8b7d', joinedAt: '2026-11-24T09:52:31.000Z' },
];

const report = {
  reportId: REPORT,
  organisationId: ORG,
  reportType: 'CHAT',
  status: 'COMPLETED',
  filters: { isResolved: false, channelIds: [CHANNEL], updatedAfter: '2026-11-01' },
  requestedAt: AT,
  requestedBy: CLIENT,
  startedAt: '2026-11-24T09:30:01.204Z',
  completedAt: '2026-11-24T09:30:03.870Z',
  rowCount: 1284,
  sizeBytes: 402311,
  truncatedCells: 0,
  format: 'text/csv',
  expiresAt: '2026-12-01T09:30:03.870Z',
};

const webhook = {
  webhookId: WEBHOOK,
  url: 'https://crm.example.com/hooks/wp-crm',
  events: ['group.created', 'group.creation_failed', 'report.completed'],
  description: 'Production CRM',
  status: 'active',
  createdAt: AT,
};

interface OperationExample {
  request?: unknown;
  responses: Record<number, unknown>;
}

const scheduleTiming = { every: 'week', at: '07:30', timezone: 'Europe/Berlin', dayOfWeek: 1 };
const reportSchedule = {
  scheduleId: SCHEDULE,
  organisationId: ORG,
  reportType: 'TICKET',
  filters: { ticketPriorityLevels: ['HIGH', 'URGENT'] },
  format: 'xlsx',
  schedule: scheduleTiming,
  period: 'previous',
  status: 'active',
  nextRunAt: '2026-11-30T06:30:00.000Z',
  createdAt: AT,
  updatedAt: AT,
};

const consoleToken = {
  accessToken:
    'eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6ImtfMDFNODBLMEYifQ.eyJvcmciOiJlNGM0Iiwic2lkIjoiY3NfMDEifQ.c2ln',
  tokenType: 'Bearer',
  expiresIn: 600,
  org: ORG,
  roles: ['CRM_ADMIN'],
  access: 'manage',
  sessionExpiresAt: '2026-11-25T09:30:00.000Z',
};

const overviewHours = Array.from({ length: 24 }, (_, index) => ({
  hour: new Date(Date.parse('2026-11-23T10:00:00.000Z') + index * 3_600_000).toISOString(),
  deliveries: { succeeded: index % 3 === 0 ? 4 : 1, failed: index === 20 ? 2 : 0, pending: index === 23 ? 1 : 0 },
  groups: { created: index % 6 === 0 ? 1 : 0, failed: 0 },
  reports: { completed: index === 8 ? 1 : 0, failed: 0 },
}));

export const OPERATION_EXAMPLES: Record<string, OperationExample> = {
  createConsoleLink: {
    request: { access: 'read', sessionSeconds: 28800 },
    responses: {
      201: {
        url: `https://crm.example.com${BASE}/console/#code=${ORG}.q8YtV3nK0sLr5mJ2xWc9Pb7HfD4gZa1EuN6iOyTk3Qw`,
        expiresAt: '2026-11-24T09:40:00.000Z',
      },
    },
  },
  startConsoleSession: {
    request: { code: `${ORG}.q8YtV3nK0sLr5mJ2xWc9Pb7HfD4gZa1EuN6iOyTk3Qw` },
    responses: { 201: consoleToken },
  },
  refreshConsoleSession: { request: {}, responses: { 200: consoleToken } },
  endConsoleSession: { request: {}, responses: { 200: { signedOut: true } } },
  getConsole: {
    responses: {
      200: '<!doctype html><html lang="en"><head><title>wp-crm console</title><script type="module" src="/api/wp-crm/console/scripts/app.4f2a9c1e0b3d.js"></script>…</html>',
    },
  },
  getConsolePage: {
    responses: {
      200: '<!doctype html><html lang="en"><head><title>wp-crm console</title><script type="module" src="/api/wp-crm/console/scripts/app.4f2a9c1e0b3d.js"></script>…</html>',
    },
  },
  getConsolePageItem: {
    responses: {
      200: '<!doctype html><html lang="en"><head><title>wp-crm console</title><script type="module" src="/api/wp-crm/console/scripts/app.4f2a9c1e0b3d.js"></script>…</html>',
    },
  },
  getConsoleScript: { responses: { 200: 'const e=document.getElementById("app");…' } },
  getConsoleStyles: { responses: { 200: ':root{--bg:#f6f7f9;--accent:#0b5cad}…' } },
  getConsoleOverview: {
    responses: {
      200: {
        from: '2026-11-23T10:00:00.000Z',
        to: AT,
        hours: overviewHours,
        totals: {
          deliveries: { succeeded: 40, failed: 2, pending: 1 },
          groups: { created: 4, failed: 0 },
          reports: { completed: 1, failed: 0 },
        },
        latestEvents: [
          { eventId: EVENT, type: 'group.created', timestamp: AT },
          {
            eventId: 'evt_01M80K2D4F8H1K5M9P2S6V0X3Z',
            type: 'report.completed',
            timestamp: '2026-11-24T09:12:00.000Z',
          },
        ],
        complete: true,
      },
    },
  },
  issueToken: {
    request: { clientId: CLIENT, clientSecret: 'cs_LilbO3xq9Zr7VfT2nW8kPa5sYd1Hc4Ju6Ge0Mb' },
    responses: {
      200: {
        accessToken: 'eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6ImtfMDFNODBLMEYifQ.eyJvcmciOiJlNGM0In0.c2ln',
        tokenType: 'Bearer',
        expiresIn: 3600,
        org: ORG,
        roles: ['CRM_ADMIN'],
      },
    },
  },
  getJwks: {
    responses: {
      200: {
        keys: [
          {
            kty: 'EC',
            crv: 'P-256',
            x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
            y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
            kid: 'k_01M80K0FJ3Q5V8X1Z4B7D0G3JM',
            alg: 'ES256',
            use: 'sig',
          },
        ],
      },
    },
  },
  getHealth: { responses: { 200: { status: 'ok' } } },
  getOpenApi: {
    responses: {
      200: { openapi: '3.1.0', info: { title: 'wp-crm groups & reports API', version: '1.0.0' }, paths: {} },
    },
  },
  getDocs: { responses: { 200: '<!doctype html><html lang="en"><head><title>wp-crm API</title>…</html>' } },
  getDocsAsset: { responses: { 200: '/*! For license information please see redoc.standalone.js.LICENSE.txt */…' } },
  listChannels: { responses: { 200: { channels: [channel], nextCursor: null } } },
  createGroup: {
    request: { channelId: CHANNEL, subject: 'Launch crew', description: 'Everyone working on the November launch' },
    responses: {
      202: { requestId: REQUEST, status: 'pending', statusUrl: `${BASE}/groups/${ORG}/creation-status/${REQUEST}` },
    },
  },
  getGroupCreationStatus: {
    responses: {
      200: {
        requestId: REQUEST,
        status: 'created',
        channelId: CHANNEL,
        subject: 'Launch crew',
        chatId: CHAT,
        inviteLink: INVITE,
        createdAt: AT,
        updatedAt: LATER,
      },
    },
  },
  listGroups: { responses: { 200: { groups: [group], nextCursor: null } } },
  getGroup: { responses: { 200: group } },
  updateGroup: {
    request: { subject: 'Launch crew (Q4)' },
    responses: { 202: { chatId: CHAT, status: 'pending' } },
  },
  deleteGroup: { responses: { 202: { chatId: CHAT, status: 'pending' } } },
  verifyNetworkWebhook: { responses: { 200: '1158201444' } },
  receiveNetworkWebhook: {
    request: {
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
                    recipient_id: GROUP,
                    recipient_type: 'group',
                  },
                ],
              },
            },
          ],
        },
      ],
    },
    responses: { 200: { received: true } },
  },
  getChat: {
    responses: {
      200: {
        chatId: CHAT,
        name: 'Launch crew',
        chatType: 'GROUP',
        channelId: CHANNEL,
        externalChatId: GROUP,
        isArchived: false,
        isResolved: false,
        isHighPriority: false,
        autopilot: false,
        lastMessageFrom: 'AGENT',
        assignedUserIds: ['usr_anna'],
        assignedTeamIds: ['team_support'],
        primaryAssigneeUserId: 'usr_anna',
        contactIds: [],
        stateMachineIds: [],
        currentStateIds: [],
        labelIds: ['lbl_launch'],
        externalItems: [],
        createdAt: AT,
        updatedAt: LATER,
        inviteLink: INVITE,
        participants,
        requireJoinApproval: true,
        description: 'Everyone working on the November launch',
        groupStatus: 'active',
      },
    },
  },
  listMessages: {
    responses: {
      200: {
        messages: [
          {
            messageId: MESSAGE,
            chatId: CHAT,
            direction: 'OUTBOUND',
            from: 'CRM_BOT',
            sentBy: 'crd_01M80K1H2B5D8F1H4K7M0P3R6T',
            text: 'Welcome aboard!',
            status: 'delivered',
            createdAt: LATER,
          },
        ],
        nextCursor: null,
      },
    },
  },
  listReceipts: {
    responses: {
      200: {
        receipts: [
          { phoneNumber: '+4915112345678', userId: null, status: 'delivered', at: '2026-11-24T09:30:41.000Z' },
          { phoneNumber: '+4915112345678', userId: null, status: 'read', at: '2026-11-24T09:31:12.000Z' },
          { phoneNumber: null, userId: 'BSUID.4a1f9c2e8b7d', status: 'delivered', at: '2026-11-24T09:30:58.000Z' },
        ],
        nextCursor: null,
      },
    },
  },
  sendMessage: {
    request: { chatId: CHAT, text: 'Welcome aboard!' },
    responses: { 202: { messageId: MESSAGE, status: 'queued' } },
  },
  assignChat: {
    request: { userIds: ['usr_anna', 'usr_ben'], teamIds: ['team_support'], primaryUserId: 'usr_anna' },
    responses: {
      200: {
        chatId: CHAT,
        assignedUserIds: ['usr_anna', 'usr_ben'],
        assignedTeamIds: ['team_support'],
        primaryAssigneeUserId: 'usr_anna',
      },
    },
  },
  listParticipants: { responses: { 200: { participants } } },
  inviteParticipants: {
    request: { phoneNumbers: ['+4915112345678', '+4917698765432'] },
    responses: {
      202: {
        invitations: [
          { phoneNumber: '+4915112345678', status: 'sent', messageId: 'wamid.HBgNNDkxNTExMjM0NTY3OBUCABEYEjQ0' },
          {
            phoneNumber: '+4917698765432',
            status: 'failed',
            error: { code: '131026', message: 'Message undeliverable' },
          },
        ],
      },
    },
  },
  removeParticipants: {
    request: { phoneNumbers: ['+4915112345678'] },
    responses: { 202: { status: 'pending', phoneNumbers: ['+4915112345678'], userIds: [] } },
  },
  getInviteLink: { responses: { 200: { inviteLink: INVITE } } },
  resetInviteLink: { responses: { 200: { inviteLink: 'https://chat.whatsapp.com/K3xZ8qLmP2vN7rT4wY1bC9' } } },
  listJoinRequests: {
    responses: {
      200: {
        joinRequests: [
          {
            joinRequestId: 'MTIwMzYzMDI1MjQ2MTI1NDg2OjQ5MTUxMTIzNDU2Nzg',
            phoneNumber: '+4915112345678',
            userId: null,
            createdAt: '2026-11-24T10:02:00.000Z',
          },
        ],
        nextCursor: null,
      },
    },
  },
  approveJoinRequests: {
    request: { joinRequestIds: ['MTIwMzYzMDI1MjQ2MTI1NDg2OjQ5MTUxMTIzNDU2Nzg'] },
    responses: { 200: { succeeded: ['MTIwMzYzMDI1MjQ2MTI1NDg2OjQ5MTUxMTIzNDU2Nzg'], failed: [] } },
  },
  rejectJoinRequests: {
    request: { joinRequestIds: ['MTIwMzYzMDI1MjQ2MTI1NDg2OjQ5MTc2OTg3NjU0MzI'] },
    responses: {
      200: {
        succeeded: [],
        failed: [
          {
            joinRequestId: 'MTIwMzYzMDI1MjQ2MTI1NDg2OjQ5MTc2OTg3NjU0MzI',
            error: { code: '131009', message: 'The join request no longer exists' },
          },
        ],
      },
    },
  },
  createWebhook: {
    request: {
      url: 'https://crm.example.com/hooks/wp-crm',
      events: ['group.created', 'group.creation_failed', 'report.completed'],
      description: 'Production CRM',
    },
    responses: { 201: { ...webhook, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } },
  },
  listWebhooks: { responses: { 200: { webhooks: [webhook], nextCursor: null } } },
  updateWebhook: {
    request: { status: 'active' },
    responses: { 200: webhook },
  },
  deleteWebhook: { responses: {} },
  rotateWebhookSecret: { responses: { 200: { secret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD' } } },
  listDeliveries: {
    responses: {
      200: {
        deliveries: [
          {
            deliveryId: DELIVERY,
            eventId: EVENT,
            type: 'group.created',
            status: 'retrying',
            attempts: 2,
            lastStatusCode: 503,
            lastError: 'HTTP 503',
            nextAttemptAt: '2026-11-24T10:05:12.000Z',
            createdAt: AT,
          },
        ],
        nextCursor: null,
      },
    },
  },
  redeliver: { responses: { 202: { deliveryId: DELIVERY, status: 'pending' } } },
  listEvents: {
    responses: {
      200: {
        events: [
          {
            eventId: EVENT,
            type: 'group.created',
            timestamp: AT,
            data: {
              type: 'group.created',
              timestamp: AT,
              organisation_id: ORG,
              request_id: REQUEST,
              chat_id: CHAT,
              channel_id: CHANNEL,
              subject: 'Launch crew',
              invite_link: INVITE,
            },
          },
        ],
        iterator: 'eyJzIjoxLCJ0IjoxNzk1NTA3ODAwMDAwfQ.3qL0mZtWQ1u2cY8X5k9nFg',
        done: true,
      },
    },
  },
  sendWebhookTest: {
    request: { type: 'group.created' },
    responses: { 202: { deliveryId: DELIVERY, eventId: 'evt_01M80K4B7C1D5F9H3K7N1Q5S9V' } },
  },
  listDeliveryAttempts: {
    responses: {
      200: {
        attempts: [
          {
            attempt: 1,
            at: LATER,
            statusCode: 503,
            durationMs: 182,
            error: 'HTTP 503',
            responseBody: '{"error":"maintenance"}',
          },
          {
            attempt: 2,
            at: '2026-11-24T09:30:09.730Z',
            statusCode: null,
            durationMs: 10000,
            error: 'timeout',
            responseBody: null,
          },
        ],
      },
    },
  },
  requestReport: {
    request: {
      reportType: 'CHAT',
      channelIds: [CHANNEL],
      updatedAfter: '2026-11-01',
      format: 'xlsx',
      compression: 'gzip',
    },
    responses: {
      202: {
        reportId: REPORT,
        organisationId: ORG,
        reportType: 'CHAT',
        status: 'PENDING',
        filters: { isResolved: false, channelIds: [CHANNEL], updatedAfter: '2026-11-01' },
        requestedAt: AT,
        requestedBy: CLIENT,
        format: 'application/gzip',
      },
    },
  },
  listReports: { responses: { 200: { reports: [report], nextCursor: null } } },
  getReport: { responses: { 200: report } },
  downloadReport: {
    responses: {
      200: {
        url: `https://wp-crm-reports.s3.eu-central-1.amazonaws.com/org/${ORG}/reports/${REPORT}.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=300&X-Amz-Signature=5d0c8f3e1b2a4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3e5f7a9b1c3d`,
        expiresAt: '2026-11-24T09:40:00.000Z',
      },
    },
  },
  // Report schedules (CONTRACT §23).
  createReportSchedule: {
    request: {
      reportType: 'TICKET',
      ticketPriorityLevels: ['HIGH', 'URGENT'],
      format: 'xlsx',
      schedule: scheduleTiming,
      period: 'previous',
    },
    responses: { 201: reportSchedule },
  },
  listReportSchedules: { responses: { 200: { schedules: [reportSchedule], nextCursor: null } } },
  getReportSchedule: {
    responses: {
      200: { ...reportSchedule, lastRunAt: '2026-11-23T06:30:00.000Z', lastReportId: 'rpt_01M7ZQ8J00D4G7K1N4R7V0Y3B6' },
    },
  },
  updateReportSchedule: {
    request: { status: 'paused' },
    responses: { 200: { ...reportSchedule, status: 'paused', nextRunAt: null, updatedAt: LATER } },
  },
  deleteReportSchedule: { responses: {} },
};

const event = (type: EventType) => ({ type, timestamp: LATER, organisation_id: ORG });

export const EVENT_EXAMPLES: Record<EventType, unknown> = {
  'group.created': {
    ...event('group.created'),
    request_id: REQUEST,
    chat_id: CHAT,
    channel_id: CHANNEL,
    subject: 'Launch crew',
    invite_link: INVITE,
  },
  'group.creation_failed': {
    ...event('group.creation_failed'),
    request_id: REQUEST,
    channel_id: CHANNEL,
    error: {
      code: 'NETWORK_REJECTED',
      message: 'the messaging network refused the request: (#131009) invalid subject',
    },
  },
  'report.completed': {
    ...event('report.completed'),
    report_id: REPORT,
    report_type: 'CHAT',
    schedule_id: null,
    row_count: 1284,
    truncatedCells: 0,
  },
  'report.failed': {
    ...event('report.failed'),
    report_id: REPORT,
    report_type: 'CALL_LOG',
    schedule_id: SCHEDULE,
    error: { code: 'REPORT_TIMEOUT', message: 'the report could not be produced' },
  },
  'message.received': {
    ...event('message.received'),
    chat_id: CHAT,
    message_id: 'msg_01M80K3A8D2F6H0K4M8P2S6V0Y',
    external_message_id: 'wamid.HBgNNDkxNTExMjM0NTY3OBUCABIYFjNFQjBDMkY1',
    from: '+4915112345678',
    message_type: 'text',
    text: 'Count me in!',
    error: null,
  },
  'message.status': {
    ...event('message.status'),
    chat_id: CHAT,
    message_id: MESSAGE,
    status: 'read',
    error: null,
    participant: { phone_number: '+4915112345678', user_id: null },
  },
  'group.participants_changed': {
    ...event('group.participants_changed'),
    chat_id: CHAT,
    change: 'joined',
    phone_numbers: ['+4915112345678'],
    user_ids: ['BSUID.4a1f9c2e8b7d'],
    join_request_id: null,
    errors: [],
  },
  'group.updated': {
    ...event('group.updated'),
    chat_id: CHAT,
    subject: 'Launch crew (Q4)',
    description: 'Everyone working on the November launch',
    group_status: 'active',
    errors: [],
  },
  'group.deleted': { ...event('group.deleted'), chat_id: CHAT },
};
