import { readFile, writeFile } from 'node:fs/promises';
import { inChildProcess } from './child.ts';
import { coldStartRuns } from './cold-start.ts';
import { erasureOnDynalite } from './erasure.ts';
import { NOISY_AWS_POOL, NOISY_CDK, NOISY_FULL, type NoisyReport, noisyRunTitle, renderNoisy } from './noisy.ts';
import { reportFormatsBenchmark, reportMemoryBenchmark } from './report-memory.ts';
import type { routeCapacityBenchmark } from './route-capacity.ts';
import { machine } from './stats.ts';
import {
  erasureRow,
  type FeedFigures,
  FULL,
  feedRows,
  figures,
  renderColdStart,
  renderErasure,
  renderFeed,
  renderMarkdown,
  renderReportFormats,
  renderRouteCapacity,
  runSuite,
  SMOKE,
} from './suite.ts';

/**
 * `npm run bench`: P1–P5 (bench/suite.ts) and P6 (bench/noisy.ts), printed and written to bench/RESULTS.md.
 * `npm run bench -- --smoke`: P1–P5 with tiny sizes in seconds; checks that every figure is a number and writes
 * nothing (P6 at small sizes is test/integration/noisy-neighbour.test.ts).
 * `npm run bench -- --noisy`: P6 alone; replaces the P6 section of bench/RESULTS.md.
 * `npm run bench -- --p3`: P3's report benchmark alone, printed.
 * `npm run bench -- --formats`: P3 for every report format and compression alone, printed as bench/RESULTS.md's table
 * (`--rows=N` for a quick look).
 * `npm run bench -- --erasure`: the erasure's cost alone, printed as bench/RESULTS.md's row and paragraph.
 * `npm run bench -- --feed`: the events feed alone (latency, the long read), printed as bench/RESULTS.md's rows and
 * paragraph.
 * `npm run bench -- --feed-head`: one organisation's feed head under 10 concurrent writers (commits, conflicts, write
 * units per event), printed.
 * `npm run bench -- --p5`: P5 per route class through the HTTP stack alone, printed as bench/RESULTS.md's table.
 * `npm run bench -- --tenant`: tenant-scoped credentials' cost under start:cdk (P2 first / following requests of an
 *   organisation, STS calls per 1,000 requests), printed as bench/RESULTS.md's section.
 * `npm run bench -- --console`: the console's first-page bytes and the time from a sign-in link to the Overview, printed
 * as bench/RESULTS.md's rows and section.
 * `npm run bench -- --p1`: P1 alone (every function beside the baselines, three runs), printed as bench/RESULTS.md's P1
 * summary rows and section; writes nothing.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
const smoke = process.argv.includes('--smoke');
const P6_HEADING = '## P6';
/** What P1's section says beside its figures (bench/suite.ts, renderColdStart). */
const P1_NOTES = {
  synthCheck:
    'bench/synth-check.ts verified on 2026-11-28 that all 49 bundles built this way (the credential alias ' +
    'included) are byte-identical to the `index.mjs` assets of `cdk synth -q --no-validation` (49/49), and again ' +
    'with the event-streams alias against the assets start:cdk synthesized for the e2e suite (50/50).',
  before:
    'main at c518ebc: every function 741–804 KB, because the composition root imported every SDK client and ' +
    'adapter; importing one cost 81–91 ms over the empty handler against 53 ms for this reference, 1.5–1.7 ×, ' +
    "measured by the lead engineer's run of this harness's method",
  history: [
    '**2026-11-28: P1 had slipped** (on a quiet machine invite-participants and report-worker imported in 0.90 × the',
    "reference's overhead, the goal's edge; bundle median 318 KB, 305 before). The metafiles and CPU profiles of the",
    'probe (`node --cpu-prof`) showed code that every API function bundled and ran at load for nothing, now gone:',
    '(1) every route of its route module and every schema of the schemas module behind it, though each handler imports',
    "one route. `defineRoute`'s `@__NO_SIDE_EFFECTS__` mark was never read: esbuild reads such a mark only on a",
    "function of the calling file (evanw/esbuild#4369), valibot's own marks included, so every route and schema was a",
    'top-level call it had to keep and run. Routes are now marked `/* @__PURE__ */` where they are defined, with no',
    'spread in their arguments, and each top-level schema is built through a file-local `schema(() => …)` marked free',
    'of side effects (test/unit/routes/tree-shaking.test.ts): 13–16 KB less in every group and chat function.',
    '(2) The schemas of its own answers, which only the OpenAPI document reads: routes now name them',
    '(shared/schemas/responses.ts; the generated openapi.json is byte-identical): get-report 14 KB less (its view holds',
    "every report type's filters), list-reports 7 KB, the others about 1 KB. (3) The record kinds' import schemas, in",
    'every function that takes the report types from shared/domain/reports/records.ts: list-reports 6 KB less,',
    'request-report 3 KB. Tried and left out: loading the SQS client of the queue consumers, whose calls are all on',
    "rare paths, with a dynamic `import()`. It made them slower (report-worker's ratio 0.86 → 0.97, group-worker's",
    '0.85 → 0.94 in one run): bundling into one file, esbuild turns the imported module and every module it depends on',
    'into lazily initialised wrappers, which run at load all the same, each compiled twice.',
    '',
    "What still cost the queue workers most was that very effect, in the SDK: @smithy/core's HttpProtocol loads",
    '`@smithy/core/event-streams` with a dynamic `import()`, so in every function that bundles an SDK client esbuild',
    'wrapped that module and the ~160 @smithy/core modules it depends on (159 in report-worker), for event streams no',
    'operation here has. **2026-11-28 (issue 24, item 8):** FUNCTION_BUNDLING now aliases that module to a stand-in',
    '(shared/adapters/aws/no-event-streams.ts) for every function: 18–19 KB less in each bundle with an SDK client and',
    'none of the wrappers. It keeps what a client touches without an event stream: `resolveEventStreamSerdeConfig`,',
    'which the S3 client calls when constructed, and the default serde provider (a marshaller that refuses), and an',
    '`EventStreamSerde` that refuses to be built, so an operation with an event stream fails at its first use with a',
    'clear message. test/infra/sdk-stand-ins.test.ts runs the real S3 (presigned GET, Put/Get/Head/Delete, a',
    'lib-storage multipart upload), DynamoDB, SQS, EventBridge, KMS and Secrets Manager clients from a bundle built',
    "with the stack's options; the e2e suite runs the synthesized bundles under start:cdk. The what-if rows below",
    'measure the largest queue workers without it. The interim A/B figures measured on a loaded machine with',
    "bench/p1-ab.ts (wall and CPU time of the same imports) are in this file's history (2026-11-28).",
    '',
    '**2026-11-28, later (issue 24, item 8): inside the margin.** That run left report-worker (0.86) and',
    "webhook-dispatcher (0.87) at the margin's edge, and get-openapi at 1.33 × (it converted the whole document at",
    'import; it now reads `openapi.json` built at synth beside its bundle, infra/aws/function-files.ts). Three changes',
    'and one to the method: (1) the DynamoDB client (3.1162) resolves an endpoint-discovery setting that none of its',
    'commands reads (no command installs the discovery middleware), and builds for it an LRU cache from three more',
    "packages (mnemonist, obliterator, @aws-sdk/endpoint-cache) at every cold start. FUNCTION_BUNDLING's third alias",
    'bundles a stand-in (shared/adapters/aws/no-endpoint-discovery.ts) that resolves the same setting without the',
    'cache and refuses a client told to discover (test/infra/sdk-stand-ins.test.ts): 8 KB less in every function',
    'with a DynamoDB client, a gain of 0.00–0.02 × that this measure barely resolves (what-if rows below; 0.03 in an',
    "A/B on the loaded machine). (2) The report worker built every report type's filter schema, record",
    'kind and CSV layout at load, and every publisher every event body; those tables now build each entry on first',
    'read (shared/lazily.ts), so the worker builds the one type of its job. (3) Powertools Metrics is built on the',
    "first business count, not at load. The method: the probe's samples of one bundle fell into two groups ~30 ms",
    "apart, because this machine's two cores import at different speeds (pinned with taskset, the reference took",
    '146 ms on one and 101 ms on the other), so a median moved with the share of samples that landed on the slow',
    "core — message-sender's 0.92 × in one run and 0.72 × in another. Every import of a run is now pinned to the",
    'faster core of a short calibration (bench/cold-start.ts, pinnedCore). Runs 2 and 3 above, pinned to the same',
    'core, agree within 0.04 for every function; run 1, whose calibration picked the other core under the load the',
    'integration tests had just left, within 0.10. report-worker, the heaviest importer, is at 0.78–0.80 ×.',
  ].join('\n'),
};
const P6_BASELINE =
  "issue 16 (main at 33b80dd, npm start, 14 tarpit subscriptions, 40 refused messages): B's `report.completed` " +
  'reached its receiver after 133.9 s instead of 0.1 s alone, about 1,300 ×. Issue 35 (as its session measured it: ' +
  "npm run start:cdk, 13 tarpit subscriptions, 40 messages, nine reports): B's `report.completed` after 75.6 s instead of " +
  '0.7 s alone (109 ×), its `group.created` after 75.7 s (149 ×).';

/**
 * P6's three runs (npm start, npm run start:cdk, npm start with AWS's pools against three noisy organisations), each in
 * a child process with V8's default heap (the local stack and the organisations' data live in it).
 */
async function noisyNeighbour(): Promise<string> {
  const reports: NoisyReport[] = [];
  for (const [name, options] of Object.entries({ local: NOISY_FULL, cdk: NOISY_CDK, awsPool: NOISY_AWS_POOL })) {
    console.log(`P6: ${noisyRunTitle(options)}`);
    const report = await inChildProcess<NoisyReport>('./noisy.ts', 'runNoisyNeighbour', {
      ...options,
      log: undefined,
    });
    for (const [measure, ratio] of Object.entries(report.ratio))
      console.log(`${`p6.${name}.${measure}.ratio`.padEnd(48)} ${ratio}`);
    reports.push(report);
  }
  return renderNoisy(reports, P6_BASELINE);
}

if (process.argv.includes('--noisy')) {
  const section = await noisyNeighbour();
  const file = new URL('./RESULTS.md', import.meta.url);
  const current = await readFile(file, 'utf8');
  const at = current.indexOf(P6_HEADING);
  await writeFile(file, `${at === -1 ? `${current.trimEnd()}\n\n` : current.slice(0, at)}${section}`);
  console.log('wrote the P6 section of bench/RESULTS.md');
  process.exit(0);
}

if (process.argv.includes('--p1')) {
  // `npm run bench -- --p1`: P1 alone, three runs (`--runs=N`), printed as RESULTS.md's P1 summary rows and section;
  // RESULTS.md is left as it is. `--functions=a,b` and `--samples=N` narrow it for a quick look.
  const option = (name: string) =>
    process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) || undefined;
  const runs = await coldStartRuns({
    samples: Number(option('samples') ?? FULL.coldStart.samples),
    runs: Number(option('runs') ?? FULL.coldStart.runs),
    functions: option('functions')?.split(','),
    log: (line) => console.error(`… ${line}`),
  });
  const { summary, section } = renderColdStart(runs, P1_NOTES, machine().cores);
  console.log(`${summary}\n\n${section}`);
  process.exit(0);
}

if (process.argv.includes('--tenant')) {
  // `npm run bench -- --tenant`: CONTRACT §25's cost under start:cdk (P2 first / following, STS calls), printed.
  const { renderTenant, TENANT_FULL } = await import('./tenant.ts');
  const figures = await inChildProcess<import('./tenant.ts').TenantFigures>(
    './tenant.ts',
    'tenantCredentialsBenchmark',
    TENANT_FULL,
  );
  console.log(renderTenant(figures));
  process.exit(0);
}

if (process.argv.includes('--console')) {
  // `npm run bench -- --console`: in a child process (it runs a local stack and Chromium), printed.
  const { renderConsole } = await import('./console.ts');
  const figures = await inChildProcess<import('./console.ts').ConsoleFigures>('./console.ts', 'consoleBenchmark', 5);
  console.log(renderConsole(figures));
  process.exit(0);
}

if (process.argv.includes('--erasure')) {
  // `npm run bench -- --erasure`: the erasure's cost alone, printed as RESULTS.md's row and paragraph.
  const figures = await erasureOnDynalite(FULL.erasure);
  console.log(`${erasureRow(figures)}\n\n${renderErasure(figures)}`);
  process.exit(0);
}

if (process.argv.includes('--feed')) {
  // `npm run bench -- --feed`: the events feed alone, in a child process (it runs a local stack), printed.
  const feed = await inChildProcess<FeedFigures>('./event-feed.ts', 'eventFeedBenchmark', FULL.feed);
  console.log(`${feedRows(feed)}\n\n${renderFeed(feed)}`);
  process.exit(0);
}

if (process.argv.includes('--feed-head')) {
  // `npm run bench -- --feed-head`: one organisation's feed head under 10 concurrent writers (docs/SCALE.md), printed.
  const { FEED_HEAD_FULL } = await import('./feed-head.ts');
  const figures = await inChildProcess<Record<string, unknown>>('./feed-head.ts', 'feedHeadBenchmark', FEED_HEAD_FULL);
  console.log(JSON.stringify(figures, null, 2));
  process.exit(0);
}

if (process.argv.includes('--p5')) {
  // `npm run bench -- --p5`: P5 per route class through the HTTP stack (both runs), printed as RESULTS.md's table.
  const routes = await inChildProcess<Awaited<ReturnType<typeof routeCapacityBenchmark>>>(
    './route-capacity.ts',
    'routeCapacityBenchmark',
    FULL.routeRequests,
  );
  console.log(renderRouteCapacity(routes));
  process.exit(0);
}

if (process.argv.includes('--formats')) {
  const rows = Number(process.argv.find((arg) => arg.startsWith('--rows='))?.slice(7) ?? FULL.reportRows);
  const runs = await reportFormatsBenchmark(rows, Math.min(FULL.reportWarmUpRows, rows), 1, (line) =>
    console.error(`… ${line}`),
  );
  console.log(renderReportFormats(runs));
  process.exit(0);
}

if (process.argv.includes('--p3')) {
  // `npm run bench -- --p3`: the P3 report benchmark alone (worst of three runs), printed; RESULTS.md is left as it is.
  const { uptime } = await import('node:os');
  const result = await reportMemoryBenchmark(FULL.reportRows, FULL.reportWarmUpRows);
  console.log(JSON.stringify({ uptimeSeconds: Math.round(uptime()), ...result }, null, 2));
  process.exit(0);
}

const results = await runSuite(smoke ? SMOKE : FULL, (line) => console.error(`… ${line}`));
const values = figures(results);
const missing = Object.entries(values).filter(([, value]) => !Number.isFinite(value));
for (const [name, value] of Object.entries(values)) console.log(`${name.padEnd(48)} ${value}`);
if (missing.length > 0) {
  console.error(`no number for: ${missing.map(([name]) => name).join(', ')}`);
  process.exit(1);
}
if (!smoke) {
  const markdown = renderMarkdown(results, P1_NOTES);
  await writeFile(new URL('./RESULTS.md', import.meta.url), `${markdown.trimEnd()}\n\n${await noisyNeighbour()}`);
  console.log('wrote bench/RESULTS.md');
}
