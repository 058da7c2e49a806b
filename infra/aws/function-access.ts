import { LEADING_KEY_PATTERNS } from '#shared/adapters/dynamodb/keys';
import type { BucketAccess, IndexName, TableAccess } from './constructs/app-function.ts';

/**
 * What a function may touch, beyond what its routes imply (verifying tokens needs the public keys). Least
 * privilege: nothing is granted by default, and every deployed function must have an entry (an infra test checks
 * it), so a new function gets a deliberate decision instead of an AccessDenied found only on AWS.
 */
export interface FunctionAccess {
  table?: TableAccess;
  /** Only these partitions of the table (`dynamodb:LeadingKeys` patterns, keys.ts LEADING_KEY_PATTERNS). */
  tableKeys?: readonly string[];
  /** The indexes it queries (docs/architecture.md, Access patterns); none by default. */
  indexes?: readonly IndexName[];
  /** Reads records in batches (the report worker's joins, the feed writer's markers). */
  batchGets?: boolean;
  /** Writes items in batches (the feed writer's events and markers: unconditional, idempotent puts). */
  batchWrites?: boolean;
  reports?: BucketAccess;
  /** PutEvents on the service's bus. */
  publishesEvents?: boolean;
  /** Queues (by catalog name) the function sends to. */
  sendsTo?: readonly string[];
  /**
   * Reads (GetItem) what decides whether a credential still grants access — the credential, its organisation's status
   * copy, a console session — without verifying a token itself (every token verifier has this already).
   */
  checksAccess?: boolean;
  /** Reads the private signing keys: only the token function. */
  signsTokens?: boolean;
  /** Reads the public JWKS without verifying tokens itself (the JWKS endpoint). */
  servesPublicKeys?: boolean;
  /** Calls Meta's Graph API with a channel's access token (Secrets Manager). */
  callsNetwork?: boolean;
  /** Verifies Meta's webhook signatures (the app secret). */
  verifiesNetworkWebhooks?: boolean;
  /** Webhook signing secrets: encrypt new ones (`seal`) or decrypt them to sign (`open`), with the KMS key. */
  webhookSecrets?: 'seal' | 'open';
}

const NETWORK_MEMBER: FunctionAccess = { table: 'readWrite', callsNetwork: true };

export const FUNCTION_ACCESS: Readonly<Record<string, FunctionAccess>> = {
  'get-health': {},
  'get-openapi': {},
  // Serves the API reference page and its script, bundled into its asset (function-files.ts).
  'get-docs': {},
  'route-not-found': {},
  // Reads credentials; counts and clears failed attempts. Unauthenticated: those partitions only.
  'issue-token': { table: 'readWrite', tableKeys: LEADING_KEY_PATTERNS.issueToken, signsTokens: true },
  'get-jwks': { servesPublicKeys: true },
  'list-channels': { table: 'read' },
  'create-group': { table: 'readWrite', sendsTo: ['group-requests'] },
  'get-group-status': { table: 'read' },
  'list-groups': { table: 'read', indexes: ['GSI1'] },
  'get-group': { table: 'read' },
  'update-group': NETWORK_MEMBER,
  'delete-group': NETWORK_MEMBER,
  'group-worker': { table: 'readWrite', publishesEvents: true, callsNetwork: true, sendsTo: ['group-requests'] },
  'group-sweeper': {
    table: 'readWrite',
    indexes: ['GSI1'],
    publishesEvents: true,
    callsNetwork: true,
    sendsTo: ['group-requests'],
  },
  'verify-network-webhook': { verifiesNetworkWebhooks: true },
  // Internet-facing: verifies and keeps Meta's notifications, and reads nothing of any organisation (CONTRACT §21).
  'receive-network-webhook': { verifiesNetworkWebhooks: true, sendsTo: ['network-notifications'] },
  'apply-network-notifications': {
    table: 'readWrite',
    tableKeys: LEADING_KEY_PATTERNS.networkWebhook,
    // A change's channel (and so its organisation) by phone-number id.
    indexes: ['GSI1'],
    publishesEvents: true,
    callsNetwork: true,
    // Forwards each organisation's part of a notification in that organisation's group.
    sendsTo: ['network-notifications'],
  },
  'get-chat': { table: 'read' },
  'list-messages': { table: 'read' },
  'list-receipts': { table: 'read' },
  'send-message': { table: 'readWrite', sendsTo: ['outbound-messages'] },
  'message-sender': { table: 'readWrite', callsNetwork: true, publishesEvents: true, sendsTo: ['outbound-messages'] },
  'assign-chat': { table: 'readWrite' },
  'list-participants': { table: 'read' },
  'list-join-requests': { table: 'read' },
  'invite-participants': NETWORK_MEMBER,
  'remove-participants': NETWORK_MEMBER,
  'get-invite-link': NETWORK_MEMBER,
  'reset-invite-link': NETWORK_MEMBER,
  'approve-join-requests': NETWORK_MEMBER,
  'reject-join-requests': NETWORK_MEMBER,
  'create-webhook': { table: 'readWrite', webhookSecrets: 'seal' },
  'list-webhooks': { table: 'read' },
  'update-webhook': { table: 'readWrite' },
  'delete-webhook': { table: 'readWrite' },
  'rotate-webhook-secret': { table: 'readWrite', webhookSecrets: 'seal' },
  'list-deliveries': { table: 'read' },
  'list-delivery-attempts': { table: 'read' },
  'redeliver-webhook': { table: 'readWrite', sendsTo: ['webhook-deliveries'] },
  'send-webhook-test': { table: 'readWrite', sendsTo: ['webhook-deliveries'] },
  // Moves a slow receiver's attempts to the slow receivers' pool (issue 35), and back when it answers in time.
  'webhook-dispatcher': {
    table: 'readWrite',
    webhookSecrets: 'open',
    sendsTo: ['webhook-deliveries', 'webhook-slow-receivers'],
  },
  'slow-receiver-dispatcher': {
    table: 'readWrite',
    webhookSecrets: 'open',
    sendsTo: ['webhook-deliveries', 'webhook-slow-receivers'],
  },
  // The events feed (CONTRACT §20): the reader reads its organisation's feed partition; the writer appends to it.
  'list-events': { table: 'read' },
  // Its own queue, like every consumer: a suspended organisation's event goes back to it, a failed one gets its backoff.
  // Forwards each event in its organisation's group first (issue 35); reads the markers and writes the items in batches.
  'feed-writer': { table: 'readWrite', batchGets: true, batchWrites: true, sendsTo: ['event-feed'] },
  'webhook-sweeper': { table: 'readWrite', indexes: ['GSI1'], sendsTo: ['webhook-deliveries'] },
  'request-report': { table: 'readWrite', sendsTo: ['report-requests'] },
  'list-reports': { table: 'read' },
  'get-report': { table: 'read' },
  // Signs download URLs: the URL carries this role's permission to read the object.
  'download-report': { table: 'read', reports: 'read' },
  'report-worker': {
    table: 'readWrite',
    indexes: ['GSI2'],
    batchGets: true,
    reports: 'write',
    publishesEvents: true,
    sendsTo: ['report-requests'],
  },
  // Deletes expired report files (GSI2's expiry list), under the reports' key pattern only.
  'create-report-schedule': { table: 'readWrite' },
  'list-report-schedules': { table: 'read' },
  'get-report-schedule': { table: 'read' },
  'update-report-schedule': { table: 'readWrite' },
  'delete-report-schedule': { table: 'readWrite' },
  // Reads the due index (GSI1), claims occurrences and requests their reports as request-report does.
  'report-schedule-sweeper': { table: 'readWrite', indexes: ['GSI1'], sendsTo: ['report-requests'] },
  // The console (CONTRACT §24): its page and assets, bundled into its asset (function-files.ts).
  'get-console': {},
  // Stores a link by its code's hash, in its organisation's console partition (ORGCONSOLE#) only.
  'create-console-link': { table: 'readWrite', tableKeys: LEADING_KEY_PATTERNS.console },
  // Unauthenticated: spend a link, open / refresh / end a session (writes in the console partitions only), check its
  // credential and organisation (reads only); sign.
  'start-console-session': {
    table: 'readWrite',
    tableKeys: LEADING_KEY_PATTERNS.console,
    checksAccess: true,
    signsTokens: true,
  },
  'refresh-console-session': {
    table: 'read',
    tableKeys: LEADING_KEY_PATTERNS.console,
    checksAccess: true,
    signsTokens: true,
  },
  'end-console-session': { table: 'readWrite', tableKeys: LEADING_KEY_PATTERNS.console },
  // The Overview's one read: the events feed and the subscriptions' delivery records.
  'get-console-overview': { table: 'read' },
  'report-sweeper': {
    table: 'readWrite',
    indexes: ['GSI1', 'GSI2'],
    reports: 'expire',
    publishesEvents: true,
    sendsTo: ['report-requests'],
  },
};
