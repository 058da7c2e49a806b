import { startLocalStack } from '#infra/local/stack';
import { deps } from '#shared/config/deps';
import { generateRecords } from '#shared/domain/crm/generate-records';
import { createCredential, createOrg } from '#shared/domain/orgs/administer';
import type { CrmRecord } from '#shared/domain/reports/records';
import { stackEnv } from '#test/support/stack-harness';

/**
 * 100,000 CHAT rows end to end through the local stack: records in dynalite, POST /reports, the worker over SQS
 * semantics, the CSV in s3rver, the 303 and the download. Loading the data is not timed.
 */
export async function reportEndToEndBenchmark(rows = 100_000) {
  const stack = await startLocalStack({
    seed: false,
    env: stackEnv({ POWERTOOLS_LOG_LEVEL: 'SILENT', ORG_REQUEST_RATE_LIMIT: '100000000/60' }),
  });
  try {
    const { orgId } = await createOrg(deps(), { name: 'Bench' });
    const { clientId, clientSecret } = await createCredential(deps(), { orgId, roles: ['CRM_ADMIN'] });
    const loadStarted = performance.now();
    let chunk: CrmRecord[] = [];
    const flush = async () => {
      const batches = [];
      for (let start = 0; start < chunk.length; start += 500)
        batches.push(deps().crm.putRecords(orgId, chunk.slice(start, start + 500)));
      await Promise.all(batches);
      chunk = [];
    };
    for (const record of generateRecords({ scale: rows, seed: 42 })) {
      if (record.recordType !== 'CHAT') continue;
      // Chats only, without contacts, so loading stays quick; the report reads the same items either way.
      chunk.push({ ...record, contactIds: [], isResolved: false });
      if (chunk.length === 4_000) await flush();
    }
    await flush();
    const loadSeconds = (performance.now() - loadStarted) / 1000;

    const call = async (path: string, init: RequestInit = {}) => fetch(`${stack.apiUrl}${path}`, init);
    const { accessToken } = (await (
      await call('/token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId, clientSecret }),
      })
    ).json()) as { accessToken: string };
    const auth = { authorization: `Bearer ${accessToken}` };
    const started = performance.now();
    const accepted = (await (
      await call(`/reports/${orgId}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: '{"reportType":"CHAT"}',
      })
    ).json()) as { reportId: string };
    let report: { status: string; rowCount?: number; sizeBytes?: number };
    do {
      await new Promise((resolve) => setTimeout(resolve, 100));
      report = (await (
        await call(`/reports/${orgId}/${accepted.reportId}`, { headers: auth })
      ).json()) as typeof report;
    } while (report.status === 'PENDING' || report.status === 'PROCESSING');
    const completedSeconds = (performance.now() - started) / 1000;
    const redirect = await call(`/reports/${orgId}/${accepted.reportId}/download`, {
      headers: auth,
      redirect: 'manual',
    });
    const downloadStarted = performance.now();
    const csv = await (await fetch(redirect.headers.get('location')!)).text();
    const downloadSeconds = (performance.now() - downloadStarted) / 1000;
    const lines = csv.split('\r\n').length - 2;
    return {
      rows: report.rowCount ?? 0,
      downloadedRows: lines,
      sizeMiB: (report.sizeBytes ?? 0) / 2 ** 20,
      loadSeconds,
      requestToCompletedSeconds: completedSeconds,
      downloadSeconds,
      status: report.status,
    };
  } finally {
    await stack.close();
  }
}
