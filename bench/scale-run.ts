import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { runScale, type ScaleReport } from './scale.ts';

/**
 * `npm run scale`: the local stack with SCALE_ORGS organisations (default 1,000), each sending SCALE_MESSAGES
 * messages (default 2), SCALE_CONCURRENCY requests in flight (default 25). Prints the figures and writes
 * bench/SCALE-RESULTS.md (docs/SCALE.md quotes it). Exits 1 when an event was lost or reached another organisation.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const organisations = Number(process.env.SCALE_ORGS ?? 1000);
const messagesPerOrganisation = Number(process.env.SCALE_MESSAGES ?? 2);
const concurrency = Number(process.env.SCALE_CONCURRENCY ?? 25);
const load = loadavg()[0]!.toFixed(2);

const report = await runScale({
  organisations,
  messagesPerOrganisation,
  concurrency,
  log: (line) => console.error(`… ${line}`),
});
console.log(JSON.stringify(report, null, 2));
const markdown = render(report);
console.log(markdown);
if (organisations >= 100) await writeFile(new URL('./SCALE-RESULTS.md', import.meta.url), markdown);
const failures = [
  report.deliveries.lost > 0 && `${report.deliveries.lost} events never reached their organisation`,
  report.deliveries.foreign > 0 && `${report.deliveries.foreign} events reached another organisation`,
  report.deliveries.delivered < report.deliveries.expected && 'fewer deliveries than events',
].filter(Boolean);
for (const failure of failures) console.error(`SCALE FAILED: ${failure}`);
process.exitCode = failures.length ? 1 : 0;

function render(r: ScaleReport): string {
  const phaseRow = (name: string, what: string) => {
    const p = r.phases[name]!;
    return `| ${what} | ${p.operations} | ${p.seconds} s | ${p.perSecond}/s | ${p.latencyMs.p50} ms | ${p.latencyMs.p99} ms | ${p.latencyMs.max} ms | ${p.writeUnitsPerOperation} |`;
  };
  const partitionRows = (rows: ScaleReport['dynamodb']['hottestTable']) =>
    rows.map((row) => `| \`${row.partition}\` | ${row.writeUnits} | ${row.share} % |`).join('\n');
  return `# Scale run: ${r.organisations} organisations on one local stack

Written by \`npm run scale\` (bench/scale.ts) on ${new Date().toISOString().slice(0, 10)}: Node ${process.version},
${cpus().length} cores, 1-minute load average ${load} at the start. Every organisation has its own credential, channel
(own phone-number id), webhook subscription and group; requests run ${concurrency} at a time across organisations. Latencies
run from the API call to the event's arrival at the organisation's receiver, through the whole local stack (queues,
workers, the simulator's signed notifications, the bus, the dispatcher). Each phase submits all its operations at
once, so its latencies are mostly the backlog of a phase that one process on two cores drains at the rate shown:
they are this machine's, not Lambda's. The write units per operation include everything the operation caused
(events, deliveries, the index entries) and carry over to AWS.

| Phase | Operations | Took | Rate | p50 | p99 | max | DynamoDB write units per operation |
|---|---|---|---|---|---|---|---|
${phaseRow('token', 'POST /token, one per organisation')}
${phaseRow('groupCreated', 'create group → group.created delivered')}
${phaseRow('messageDelivered', `send-message (${r.messagesPerOrganisation} per organisation) → message.status delivered`)}
${phaseRow('messageReceived', 'a member writes → message.received delivered')}

Events: ${r.deliveries.expected} expected, ${r.deliveries.delivered} delivered, ${r.deliveries.lost} lost,
${r.deliveries.foreign} delivered to another organisation's receiver.

DynamoDB write units (the capacity meter: DynamoDB's sizing rules, failed conditional writes included):
${r.dynamodb.tableWriteUnits} on the table over ${r.dynamodb.tablePartitions} partitions.

Hottest table partitions:

| Partition | Write units | Share of the table's |
|---|---|---|
${partitionRows(r.dynamodb.hottestTable)}

Hottest index partitions:

| Index partition | Write units | Share of that run's index writes |
|---|---|---|
${partitionRows(r.dynamodb.hottestIndex)}

Write units by key shape (ids replaced by \`*\`):

| Shape | Write units | Share of all writes |
|---|---|---|
${partitionRows(r.dynamodb.byShape)}
`;
}
