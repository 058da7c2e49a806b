import { createHash } from 'node:crypto';
import type { AttemptCounter } from '#shared/ports/identity-store';

/** Every key value of the table, built here and nowhere else. See the access-pattern table in docs/architecture.md. */
export const keys = {
  org: (orgId: string) => ({ PK: `ORG#${orgId}`, SK: 'ORG' }),
  credential: (clientId: string) => ({ PK: `CLIENT#${clientId}`, SK: 'CLIENT' }),
  /** The partition of a client id: its credential and its attempt counters (erased with it). */
  clientPartition: (clientId: string) => `CLIENT#${clientId}`,
  /**
   * The organisation's pointer to one of its credentials, written before the credential: its credentials are found
   * from its own partition (listing, erasure), never by scanning the table.
   */
  credentialOfOrg: (orgId: string, clientId: string) => ({ PK: `ORG#${orgId}`, SK: `CRED#${clientId}` }),
  credentialOfOrgPrefix: 'CRED#',
  /**
   * Token attempts: a client id's counter and each (client id, address) pair's sit beside its credential, so they go
   * with it; an address's (no organisation's) in a partition of its own.
   */
  loginAttempts: (counter: AttemptCounter) =>
    counter.kind === 'client'
      ? { PK: `CLIENT#${counter.id}`, SK: 'LOGIN_ATTEMPTS' }
      : counter.kind === 'address'
        ? { PK: `LOGINADDR#${counter.id}`, SK: 'LOGIN_ATTEMPTS' }
        : { PK: `CLIENT#${counter.id}`, SK: `LOGIN_ATTEMPTS#${counter.address}` },
  channel: (orgId: string, channelId: string) => ({ PK: `ORG#${orgId}`, SK: `CHANNEL#${channelId}` }),
  channelPrefix: (orgId: string) => ({ PK: `ORG#${orgId}`, SKPrefix: 'CHANNEL#' }),
  channelByPhoneNumberId: (phoneNumberId: string, channelId: string) => ({
    GSI1PK: `WAPHONE#${phoneNumberId}`,
    GSI1SK: `CHANNEL#${channelId}`,
  }),
  channelByPhoneNumberIdPartition: (phoneNumberId: string) => `WAPHONE#${phoneNumberId}`,
  /**
   * A copy of the organisation's status in a partition of its own (written after the organisation item), so that the
   * token function can read it without reaching the organisation's partition.
   */
  orgStatus: (orgId: string) => ({ PK: `ORGSTATUS#${orgId}`, SK: 'STATUS' }),
};

/**
 * The published JWKS, a copy of the SSM parameter that the token verifiers read with the DynamoDB client they already
 * hold (an SSM client would double their size). Only the key manager writes it; IAM lets the verifiers read this
 * partition alone (`dynamodb:LeadingKeys`).
 */
export const PUBLIC_KEYS_PARTITION = 'JWKS';
export const publicKeysKey = { PK: PUBLIC_KEYS_PARTITION, SK: 'JWKS' };

/** An organisation id (a lowercase UUID) as an IAM StringLike pattern: `?` is one character. */
const ORG_PATTERN = 'ORG#????????-????-????-????-????????????';

/**
 * The partitions the two unauthenticated functions may touch, as IAM `dynamodb:LeadingKeys` patterns (StringLike;
 * a Query on an index is checked against the index's partition key). Anything else of the multi-tenant table —
 * credentials' neighbours, webhook subscriptions and secrets, CRM records, reports, idempotency and rate keys — is
 * out of their reach even if their code were made to ask for it.
 */
export const LEADING_KEY_PATTERNS = {
  /** Credentials, the token attempt counters (per client id, per address, per pair) and the organisation's status. */
  issueToken: ['CLIENT#*', 'LOGINADDR#*', 'ORGSTATUS#*'],
  /**
   * What every token verifier reads (GetItem) besides the JWKS: the token's credential and its organisation's status,
   * and for a console session's token the session (CONTRACT §24: signed out or expired → refused), in its
   * organisation's console partition. The console's session routes read the same to decide whether a session still
   * grants anything.
   */
  accessStatus: ['CLIENT#*', 'ORGSTATUS#*', 'ORGCONSOLE#*'],
  /**
   * What the console's link and session routes write: the organisations' console partitions (links and sessions)
   * only, never a credential or a status copy.
   */
  console: ['ORGCONSOLE#*'],
  /**
   * Meta's notifications: the channel by phone-number id (GSI1), group requests (the organisation's partition),
   * chats and their conversations, the network links, held confirmations and statuses (in the organisation's
   * partition; before, under the links, until their TTL), and the events' outbox; and
   * the organisation's status, which the queue consumer and the network gate read (a suspended organisation's work
   * waits, and nothing reaches Meta for it: CONTRACT §17, §21).
   */
  networkWebhook: [
    ORG_PATTERN,
    'ORGSTATUS#*',
    `${ORG_PATTERN}#CHAT`,
    `${ORG_PATTERN}#CHAT#*`,
    'WAPHONE#*',
    'WAREQ#*',
    'WAGROUP#*',
    'WAMSG#*',
    `${ORG_PATTERN}#OUTBOX#*`,
    // Notifications held until what they name is linked (heldKeys).
    `${ORG_PATTERN}#HELD`,
    // Events recorded before the outbox moved into the organisations' partitions, until their TTL.
    'EVENT#*',
  ],
  /**
   * The per-organisation quota windows every authenticated function counts in (CONTRACT §18), for those that may
   * not otherwise write to the table: `limitKeys.rateWindow` of the two request-quota scopes.
   */
  requestQuota: [
    `RATE#org-requests#${ORG_PATTERN.slice('ORG#'.length)}`,
    `RATE#network-calls#${ORG_PATTERN.slice('ORG#'.length)}`,
  ],
} as const;

/**
 * Every rate-window scope (the per-organisation limits, CONTRACT §13, §18): a window exists only under one of these,
 * so an organisation's windows are found from this list and its id (erasure).
 */
export const RATE_SCOPES = [
  'org-requests',
  'network-calls',
  'message-send',
  'group-create',
  'webhook-redeliver',
] as const;
export type RateScope = (typeof RATE_SCOPES)[number];

/**
 * The organisation whose partition `pk` is (`ORG#<org>` or `ORG#<org>#…`), or undefined for a global partition: how a
 * sweeper that found an item's keys in a due list knows whose credentials read the item (CONTRACT §25).
 */
export function organisationOfPartition(pk: unknown): string | undefined {
  return typeof pk === 'string' ? /^ORG#([^#]+)/.exec(pk)?.[1] : undefined;
}

/** Strips the key attributes before an item becomes a domain object. */
export function withoutKeys<T>(item: Record<string, unknown>): T {
  const { PK, SK, GSI1PK, GSI1SK, GSI2PK, GSI2SK, ttl, entity, ...rest } = item;
  return rest as T;
}

export const groupKeys = {
  request: (orgId: string, requestId: string) => ({ PK: `ORG#${orgId}`, SK: `GRQ#${requestId}` }),
  /** Sparse index entries: a request is in OPEN while open, in UNPUBLISHED while final but unannounced. */
  openPartition: 'GRQ#OPEN',
  unpublishedPartition: 'GRQ#UNPUBLISHED',
  open: (createdAt: string, orgId: string, requestId: string) => ({
    GSI1PK: 'GRQ#OPEN',
    GSI1SK: `${createdAt}#${orgId}#${requestId}`,
  }),
  unpublished: (updatedAt: string, orgId: string, requestId: string) => ({
    GSI1PK: 'GRQ#UNPUBLISHED',
    GSI1SK: `${updatedAt}#${orgId}#${requestId}`,
  }),
  networkRequest: (networkRequestId: string) => ({ PK: `WAREQ#${networkRequestId}`, SK: 'LINK' }),
  /** Where a confirmation was held before it moved into its organisation's partition (`heldKeys`), until its TTL. */
  legacyHeldConfirmation: (networkRequestId: string) => ({ PK: `WAREQ#${networkRequestId}`, SK: 'CONFIRMATION' }),
};

/**
 * Meta's notifications held until what they name is linked (a group_create confirmation before its request's link,
 * a status before its wamid's link), in the partition of the organisation whose number they were reported for
 * (CONTRACT §25: they carry members' numbers and invite links). The global `WAREQ#` / `WAMSG#` partitions keep only
 * the links (ids). Held items expire (TTL, 7 days).
 */
export const heldKeys = {
  partition: (orgId: string) => `ORG#${orgId}#HELD`,
  confirmation: (orgId: string, networkRequestId: string) => ({
    PK: `ORG#${orgId}#HELD`,
    SK: `WAREQ#${networkRequestId}`,
  }),
  /** One per status (and member) of a wamid. */
  status: (orgId: string, networkMessageId: string, status: string) => ({
    PK: `ORG#${orgId}#HELD`,
    SK: `WAMSG#${networkMessageId}#${status}`,
  }),
  statusPrefix: (networkMessageId: string) => `WAMSG#${networkMessageId}#`,
};

export const limitKeys = {
  /** Every idempotency key of an organisation in one partition of its own (found and erased by it). */
  idempotency: (orgId: string, key: string) => ({ PK: `IDEM#${orgId}`, SK: `KEY#${key}` }),
  idempotencyPartition: (orgId: string) => `IDEM#${orgId}`,
  rateWindow: (scope: RateScope, orgId: string, windowStart: number) => ({
    PK: `RATE#${scope}#${orgId}`,
    SK: `W#${windowStart}`,
  }),
  ratePartition: (scope: RateScope, orgId: string) => `RATE#${scope}#${orgId}`,
};

/**
 * CRM records (CONTRACT §9): one partition per (organisation, kind), the record id as sort key, and the kind's time
 * field in the GSI2 sort key, so a report reads newest first and its date filters become key conditions.
 */
export const crmKeys = {
  record: (orgId: string, kind: string, id: string) => ({ PK: `ORG#${orgId}#${kind}`, SK: `REC#${id}` }),
  timeIndex: (orgId: string, kind: string, time: string, id: string) => ({
    GSI2PK: `ORG#${orgId}#${kind}`,
    GSI2SK: `${time}#${id}`,
  }),
  timeIndexPartition: (orgId: string, kind: string) => `ORG#${orgId}#${kind}`,
  /** The chats that list a contact (edge items maintained when chats are written). */
  contactChats: (orgId: string, contactId: string) => ({ PK: `ORG#${orgId}#CONTACT_CHATS`, SK: `REC#${contactId}` }),
};

export const chatKeys = {
  chat: (orgId: string, chatId: string) => crmKeys.record(orgId, 'CHAT', chatId),
  chatTimeIndex: (orgId: string, updatedAt: string, chatId: string) =>
    crmKeys.timeIndex(orgId, 'CHAT', updatedAt, chatId),
  externalChat: (externalChatId: string) => ({ PK: `WAGROUP#${externalChatId}`, SK: 'LINK' }),
  /** Group chats carry a GSI1 entry per organisation, ordered by creation: the group listing. */
  groupIndex: (orgId: string, createdAt: string, chatId: string) => ({
    GSI1PK: `ORG#${orgId}#GROUPS`,
    GSI1SK: `${createdAt}#${chatId}`,
  }),
  groupIndexPartition: (orgId: string) => `ORG#${orgId}#GROUPS`,
  conversation: (orgId: string, chatId: string) => `ORG#${orgId}#CHAT#${chatId}`,
  message: (orgId: string, chatId: string, messageId: string) => ({
    PK: `ORG#${orgId}#CHAT#${chatId}`,
    SK: `MSG#${messageId}`,
  }),
  networkMessage: (networkMessageId: string) => ({ PK: `WAMSG#${networkMessageId}`, SK: 'LINK' }),
  /**
   * Where a status was held before held statuses moved into their organisation's partition (`heldKeys`), until its
   * TTL: read, never written.
   */
  legacyHeldStatusPrefix: 'HELDSTATUS#',
  joinRequest: (orgId: string, chatId: string, joinRequestId: string) => ({
    PK: `ORG#${orgId}#CHAT#${chatId}`,
    SK: `JOINREQ#${joinRequestId}`,
  }),
  /**
   * One member's receipt of a group message (`member`: `phone:<E.164>` or `user:<id>`), beside the message: its
   * `delivered` where receipts always were, its `read` beside it, so both are kept (CONTRACT §16).
   */
  receipt: (orgId: string, chatId: string, messageId: string, member: string, status: 'delivered' | 'read') => ({
    PK: `ORG#${orgId}#CHAT#${chatId}`,
    SK: `RCPT#${messageId}#${member}${status === 'read' ? '#read' : ''}`,
  }),
  receiptPrefix: (messageId: string) => `RCPT#${messageId}#`,
};

/**
 * The console's magic links and sessions (CONTRACT §24), in one partition per organisation, `ORGCONSOLE#<org>`: found
 * and erased from its id (CONTRACT §17), and under a prefix derived from it (§25). The one-time code and the session
 * cookie carry the organisation id, so a link is found from its code alone (by the code's SHA-256, never the code) and
 * a session from its cookie or from its token (whose claims carry both ids). Apart from `ORG#<org>` and `ORGSTATUS#`
 * on purpose: every token verifier reads a session with its own role, and reaches neither the organisation's data nor
 * (for writing) its status copy through this grant (LEADING_KEY_PATTERNS). Neither item holds personal data
 * (organisation, credential, roles, times); both carry a TTL a day after they end.
 */
export const consoleKeys = {
  partition: (orgId: string) => `ORGCONSOLE#${orgId}`,
  link: (orgId: string, codeHash: string) => ({ PK: `ORGCONSOLE#${orgId}`, SK: `LINK#${codeHash}` }),
  session: (orgId: string, sessionId: string) => ({ PK: `ORGCONSOLE#${orgId}`, SK: `SESSION#${sessionId}` }),
  sessionPrefix: 'SESSION#',
};

export const reportKeys = {
  report: (orgId: string, reportId: string) => ({ PK: `ORG#${orgId}`, SK: `RPT#${reportId}` }),
  reportPrefix: 'RPT#',
  /** The (organisation, type) window: one conditional write claims it. */
  window: (orgId: string, reportType: string) => ({ PK: `ORG#${orgId}`, SK: `RPTWIN#${reportType}` }),
  openPartition: 'RPT#OPEN',
  unpublishedPartition: 'RPT#UNPUBLISHED',
  open: (requestedAt: string, orgId: string, reportId: string) => ({
    GSI1PK: 'RPT#OPEN',
    GSI1SK: `${requestedAt}#${orgId}#${reportId}`,
  }),
  unpublished: (at: string, orgId: string, reportId: string) => ({
    GSI1PK: 'RPT#UNPUBLISHED',
    GSI1SK: `${at}#${orgId}#${reportId}`,
  }),
  /** A completed report's file, in GSI2 by its expiry until the sweeper deleted it (CONTRACT §17). */
  expiringPartition: 'RPT#EXPIRING',
  expiring: (expiresAt: string, orgId: string, reportId: string) => ({
    GSI2PK: 'RPT#EXPIRING',
    GSI2SK: `${expiresAt}#${orgId}#${reportId}`,
  }),
};

/**
 * Report schedules (CONTRACT §23) in their organisation's partition, so erasure finds them from its keys; the slot
 * counter beside them; an active schedule's due time in one sparse GSI1 partition, read by the sweeper every minute.
 */
export const scheduleKeys = {
  schedule: (orgId: string, scheduleId: string) => ({ PK: `ORG#${orgId}`, SK: `RSC#${scheduleId}` }),
  schedulePrefix: 'RSC#',
  /** How many schedules the organisation holds (REPORT_SCHEDULE_LIMIT). */
  count: (orgId: string) => ({ PK: `ORG#${orgId}`, SK: 'RSCCOUNT' }),
  duePartition: 'RSC#DUE',
  /**
   * Due at one time, schedules sort by a hash of (schedule, time): a tie-break that favours no organisation (by its
   * id the lowest ids would always be read first when a sweep cannot read every schedule due).
   */
  due: (dueAt: string, orgId: string, scheduleId: string) => ({
    GSI1PK: 'RSC#DUE',
    GSI1SK: `${dueAt}#${createHash('sha256').update(`${scheduleId}#${dueAt}`).digest('hex').slice(0, 8)}#${orgId}#${scheduleId}`,
  }),
};

export const webhookKeys = {
  subscription: (orgId: string, webhookId: string) => ({ PK: `ORG#${orgId}`, SK: `WHK#${webhookId}` }),
  subscriptionPrefix: 'WHK#',
  /**
   * Left where a deleted subscription was: its deliveries stay (an integrator may still list them until the
   * organisation is erased), and the erasure finds their partition by it.
   */
  deletedSubscription: (orgId: string, webhookId: string) => ({ PK: `ORG#${orgId}`, SK: `WHKDELETED#${webhookId}` }),
  /** How many subscriptions the organisation holds (its slots, CONTRACT §13). */
  subscriptionCount: (orgId: string) => ({ PK: `ORG#${orgId}`, SK: 'WHKCOUNT' }),
  delivery: (orgId: string, webhookId: string, deliveryId: string) => ({
    PK: `ORG#${orgId}#WHK#${webhookId}`,
    SK: `DLV#${deliveryId}`,
  }),
  deliveries: (orgId: string, webhookId: string) => `ORG#${orgId}#WHK#${webhookId}`,
  /** A delivery's sort key: its id is a ULID after `dlv_`, so a range of sort keys is a range of creation times. */
  deliverySortKey: (deliveryId: string) => `DLV#${deliveryId}`,
  /** One delivery per (subscription, event): the event id points at it. */
  eventDelivery: (orgId: string, webhookId: string, eventId: string) => ({
    PK: `ORG#${orgId}#WHK#${webhookId}`,
    SK: `EVT#${eventId}`,
  }),
  /** Sparse index of deliveries waiting longer than a queue delay allows. */
  due: (dueAt: string, orgId: string, webhookId: string, deliveryId: string) => ({
    GSI1PK: 'DLV#DUE',
    GSI1SK: `${dueAt}#${orgId}#${webhookId}#${deliveryId}`,
  }),
};

/**
 * The outbox's sparse index is spread over this many partitions. Every event enters and leaves it (two index writes),
 * and its sort key grows with time, so DynamoDB cannot split one partition for heat: a single partition would cap the
 * whole service near 500 events/s (1,000 WCU, docs/SCALE.md). 16 partitions lift that to about 8,000/s.
 */
export const OUTBOX_SHARDS = 16;

const shardOf = (id: string) => {
  let hash = 0;
  for (let index = 0; index < id.length; index += 1) hash = (hash * 31 + id.charCodeAt(index)) >>> 0;
  return hash % OUTBOX_SHARDS;
};

/** An organisation's outbox is spread over this many partitions (its own: found and erased from its id). */
export const ORG_OUTBOX_SHARDS = 4;

/** Events produced by network notifications, one item per event id (the outbox), in their organisation's partitions. */
export const outboxKeys = {
  event: (orgId: string, eventId: string) => ({
    PK: `ORG#${orgId}#OUTBOX#${shardOf(eventId) % ORG_OUTBOX_SHARDS}`,
    SK: `EVENT#${eventId}`,
  }),
  partitions: (orgId: string) =>
    Array.from({ length: ORG_OUTBOX_SHARDS }, (_, shard) => `ORG#${orgId}#OUTBOX#${shard}`),
  /** Where an event recorded before the outbox moved into the organisations' partitions is (until its TTL). */
  legacyEvent: (eventId: string) => ({ PK: `EVENT#${eventId}`, SK: 'EVENT' }),
  /** Every partition the sweeper reads: the shards, and the single partition of items recorded before them. */
  unpublishedPartitions: [
    'EVENT#UNPUBLISHED',
    ...Array.from({ length: OUTBOX_SHARDS }, (_, shard) => `EVENT#UNPUBLISHED#${shard}`),
  ],
  unpublished: (recordedAt: string, eventId: string) => ({
    GSI1PK: `EVENT#UNPUBLISHED#${shardOf(eventId)}`,
    GSI1SK: `${recordedAt}#${eventId}`,
  }),
};

/**
 * An organisation's event feed (CONTRACT §20), in one partition of its own (found and erased from its id): the head
 * (the last committed sequence, a version and the events committed but not yet written as items), one item per event
 * at its sequence (zero-padded, so the sort key orders them), and one marker per event id (an event is appended once).
 */
export const feedKeys = {
  partition: (orgId: string) => `ORG#${orgId}#FEED`,
  head: (orgId: string) => ({ PK: `ORG#${orgId}#FEED`, SK: 'HEAD' }),
  event: (orgId: string, seq: number) => ({ PK: `ORG#${orgId}#FEED`, SK: feedSortKey(seq) }),
  marker: (orgId: string, eventId: string) => ({ PK: `ORG#${orgId}#FEED`, SK: `ID#${eventId}` }),
  /** Every event item's sort key starts with it (the head and the markers' do not). */
  eventPrefix: 'EV#',
};

/** `EV#` and the sequence in 15 digits: sort-key order is sequence order up to 10^15 events per organisation. */
export const feedSortKey = (seq: number) => `EV#${String(seq).padStart(15, '0')}`;

/**
 * An organisation's places in the shared worker pools (shared/queue/org-share.ts): one item per pool in a partition of
 * its own (found and erased from its id; each item also expires by TTL a day after its last lease), holding the
 * invocations in flight as leases with their ends.
 */
export const poolKeys = {
  partition: (orgId: string) => `ORG#${orgId}#POOL`,
  leases: (orgId: string, pool: string) => ({ PK: `ORG#${orgId}#POOL`, SK: `POOL#${pool}` }),
};
