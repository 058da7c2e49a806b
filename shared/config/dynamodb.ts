import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { routedByOrganisation } from '#shared/adapters/aws/tenant-clients';
import { DynamoChatStore } from '#shared/adapters/dynamodb/chat-store';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoCrmStore } from '#shared/adapters/dynamodb/crm-store';
import { DynamoEventOutbox } from '#shared/adapters/dynamodb/event-outbox';
import { DynamoGroupRequestStore } from '#shared/adapters/dynamodb/group-request-store';
import { DynamoIdentityStore } from '#shared/adapters/dynamodb/identity-store';
import { DynamoLimits } from '#shared/adapters/dynamodb/limits';
import { DynamoReportScheduleStore } from '#shared/adapters/dynamodb/report-schedule-store';
import { DynamoReportStore } from '#shared/adapters/dynamodb/report-store';
import { DynamoWebhookStore } from '#shared/adapters/dynamodb/webhook-store';
import { config } from './core.ts';
import { instance } from './instances.ts';
import { tenantCredentials } from './tenant.ts';

/**
 * The table's stores, all over one DynamoDB document client; with the tenant-access role, each organisation's calls
 * go through a client of its own credentials on the same connections (CONTRACT §25).
 */
export function documentClient(): DynamoDBDocumentClient {
  return instance(documentClient, () => {
    const options = { region: config().aws.region, endpoint: config().aws.endpoints.dynamodb };
    const client = createDocumentClient(options);
    const tenant = tenantCredentials();
    if (!tenant) return client;
    const { requestHandler } = client.config;
    return routedByOrganisation(client, tenant, (credentials) =>
      createDocumentClient({ ...options, credentials, requestHandler }),
    );
  });
}

const table = () => config().aws.tableName;

export function identityStore(): DynamoIdentityStore {
  return instance(identityStore, () => new DynamoIdentityStore(documentClient(), table()));
}

export function groupRequestStore(): DynamoGroupRequestStore {
  return instance(groupRequestStore, () => new DynamoGroupRequestStore(documentClient(), table()));
}

export function chatStore(): DynamoChatStore {
  return instance(chatStore, () => new DynamoChatStore(documentClient(), table()));
}

/** Rate limits and idempotency keys. */
export function limits(): DynamoLimits {
  return instance(limits, () => new DynamoLimits(documentClient(), table()));
}

export function webhookStore(): DynamoWebhookStore {
  return instance(webhookStore, () => new DynamoWebhookStore(documentClient(), table()));
}

export function reportStore(): DynamoReportStore {
  return instance(reportStore, () => new DynamoReportStore(documentClient(), table()));
}

export function reportScheduleStore(): DynamoReportScheduleStore {
  return instance(reportScheduleStore, () => new DynamoReportScheduleStore(documentClient(), table()));
}

export function crmStore(): DynamoCrmStore {
  return instance(crmStore, () => new DynamoCrmStore(documentClient(), table()));
}

export function eventOutbox(): DynamoEventOutbox {
  return instance(eventOutbox, () => new DynamoEventOutbox(documentClient(), table()));
}
