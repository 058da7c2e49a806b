import { runLoad } from './load.ts';

/**
 * `npm run load`: RELIABILITY K-3 on loopback. LOAD_CONNECTIONS (default 50) and LOAD_SECONDS (default 10) scale it;
 * RELIABILITY's `-c 200 -d 20` is `LOAD_CONNECTIONS=200 LOAD_SECONDS=20 npm run load`. Exits 1 when a correctness
 * property fails; the speed figures are only recorded.
 */
const connections = Number(process.env.LOAD_CONNECTIONS ?? 50);
const seconds = Number(process.env.LOAD_SECONDS ?? 10);

const { reports, webhooks } = await runLoad({ connections, seconds });
const row = (name: string, f: typeof reports | typeof webhooks) =>
  `| ${name} | ${f.connections} | ${f.durationSeconds} s | ${f.requests} | ${f.throughputPerSecond}/s | ${f.latencyMs.p50} ms | ${f.latencyMs.p99} ms | ${JSON.stringify(f.statusCodes)} | ${f.errors} | ${f.timeouts} |`;
console.log(JSON.stringify({ reports, webhooks }, null, 2));
console.log(
  [
    '| endpoint | connections | duration | requests | throughput | p50 | p99 | status codes | errors | timeouts |',
    '|---|---|---|---|---|---|---|---|---|---|',
    row('POST /reports/{orgId}', reports),
    row('POST /network/whatsapp/webhook', webhooks),
  ].join('\n'),
);
const failures = [
  reports.accepted !== 1 && `reports: ${reports.accepted} × 202 instead of 1`,
  reports.other + reports.errors + reports.timeouts > 0 && 'reports: answers other than 202/409, or errors',
  webhooks.acknowledged !== webhooks.requests && 'webhooks: not every answer was 2xx',
  webhooks.lost > 0 && `webhooks: ${webhooks.lost} acknowledged messages not stored`,
  webhooks.unexpected > 0 && `webhooks: ${webhooks.unexpected} stored messages never sent`,
].filter(Boolean);
for (const failure of failures) console.error(`K-3 FAILED: ${failure}`);
process.exitCode = failures.length ? 1 : 0;
