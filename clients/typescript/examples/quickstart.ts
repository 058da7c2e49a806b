/**
 * The README's walkthrough as one script: token, channels, a group, its status, a report and its download URL.
 * Against `npm start` in the repository (credentials from .wpcrm/demo.json, or WPCRM_CLIENT_ID and
 * WPCRM_CLIENT_SECRET; WPCRM_BASE_URL for another deployment):
 *   npm run build -w @wp-crm/client && node --import tsx clients/typescript/examples/quickstart.ts
 * or, without building, from the sources: node --conditions=source --import tsx clients/typescript/examples/quickstart.ts
 * test/integration/client-quickstart.test.ts runs it against the local stack.
 */
import { readFileSync } from 'node:fs';
import { createWpCrmClient, issueToken, WpCrmError } from '@wp-crm/client';

const baseUrl = process.env.WPCRM_BASE_URL ?? 'http://127.0.0.1:3000';
const credentials =
  process.env.WPCRM_CLIENT_ID && process.env.WPCRM_CLIENT_SECRET
    ? { clientId: process.env.WPCRM_CLIENT_ID, clientSecret: process.env.WPCRM_CLIENT_SECRET }
    : (
        JSON.parse(readFileSync('.wpcrm/demo.json', 'utf8')) as {
          credentials: Record<string, { clientId: string; clientSecret: string }>;
        }
      ).credentials.CRM_ADMIN!;

// 1. A token: ES256, bound to one organisation and the credential's roles.
const { accessToken, org } = await issueToken(createWpCrmClient({ baseUrl }), credentials);
const api = createWpCrmClient({ baseUrl, token: accessToken });

// 2. An official WhatsApp channel that may hold groups.
const { data: channels } = await api.GET('/api/wp-crm/channels/{orgId}', { params: { path: { orgId: org } } });
const channel = channels?.channels.find((candidate) => candidate.groupsEligible);
if (!channel) throw new Error('no channel may hold groups');

// 3. Request a group (asynchronous), with an idempotency key so that a retry cannot create two.
const created = await api.POST('/api/wp-crm/groups/{orgId}', {
  params: { path: { orgId: org }, header: { 'Idempotency-Key': `quickstart-${Date.now()}` } },
  body: { channelId: channel.channelId, subject: 'Launch crew' },
});
if (!created.data) throw new WpCrmError(created.response.status, created.error);
console.log('requested', created.data.requestId, 'status at', created.response.headers.get('location'));

// 4. Poll until Meta confirmed it (or subscribe to group.created instead).
const path = { orgId: org, requestId: created.data.requestId };
let status = (await api.GET('/api/wp-crm/groups/{orgId}/creation-status/{requestId}', { params: { path } })).data;
for (let tries = 0; status && (status.status === 'pending' || status.status === 'creating') && tries < 60; tries++) {
  await new Promise((resolve) => setTimeout(resolve, 500));
  status = (await api.GET('/api/wp-crm/groups/{orgId}/creation-status/{requestId}', { params: { path } })).data;
}
console.log('group', status?.status, status?.chatId, status?.inviteLink);

// 5. Request a report (one per type per organisation every 5 minutes), then fetch its download URL.
const report = await api.POST('/api/wp-crm/reports/{organisationId}', {
  params: { path: { organisationId: org } },
  body: { reportType: 'CHAT', isResolved: false },
});
if (report.error) {
  // 409 REPORT_RATE_LIMITED names the report that blocks this one and when to try again.
  console.log('report refused', report.response.status, report.error);
} else if (report.data) {
  const reportPath = { organisationId: org, reportId: report.data.reportId };
  let current = report.data;
  for (let tries = 0; (current.status === 'PENDING' || current.status === 'PROCESSING') && tries < 60; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    current =
      (await api.GET('/api/wp-crm/reports/{organisationId}/{reportId}', { params: { path: reportPath } })).data ??
      current;
  }
  console.log('report', current.reportId, current.status, current.rowCount, 'rows');
  // `filters` narrows by `reportType`: a CHAT report's filters are the CHAT filters, with no cast.
  if (current.reportType === 'CHAT') console.log('only resolved chats?', current.filters.isResolved);
  const download = await api.GET('/api/wp-crm/reports/{organisationId}/{reportId}/download', {
    params: { path: reportPath, query: { redirect: 'false' } },
  });
  console.log('download', download.data?.url, 'until', download.data?.expiresAt);
}
