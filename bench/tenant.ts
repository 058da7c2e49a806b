import { deps } from '#shared/config/deps';
import { resetConfig } from '#shared/config/env';
import { resetDeps } from '#shared/config/instances';
import { createCredential, createOrg } from '#shared/domain/orgs/administer';
import { percentile } from './stats.ts';

/**
 * CONTRACT §25's cost: under `npm run start:cdk` (IAM enforced, the gateway's STS issuing each organisation's session),
 * with one execution environment per function so that "a warm container" is one process: `organisations`
 * organisations each make `perOrganisation` requests to GET /channels/{orgId} (list-channels: a token check, the
 * quota lease, one Query with the organisation's credentials), in rounds — every organisation's first request, then
 * every organisation's second, and so on. The container is warmed first by an organisation of its own. A first request
 * pays the AssumeRole round trip (and the organisation's SDK client); the following ones reuse both. The STS calls are
 * those the gateway issued to the function's role (the IAM report's `assumedSessions`).
 */
export interface TenantFigures {
  organisations: number;
  perOrganisation: number;
  requests: number;
  first: { p50: number; p99: number };
  following: { p50: number; p99: number };
  stsCalls: number;
  stsCallsPer1000: number;
  denied: number;
}

export const TENANT_FULL = { organisations: 100, perOrganisation: 10 };
export const TENANT_SMOKE = { organisations: 3, perOrganisation: 2 };

export async function tenantCredentialsBenchmark(options = TENANT_FULL): Promise<TenantFigures> {
  const { startCdkStack } = await import('#infra/cdk-local/stack');
  const stack = await startCdkStack({
    seed: false,
    env: {
      ...process.env,
      WPCRM_DATA_DIR: ':memory:',
      PORT: '0',
      WPCRM_DYNAMODB_PORT: '0',
      WPCRM_S3_PORT: '0',
      WPCRM_SIMULATOR_PORT: '0',
      WPCRM_IAM: 'enforce',
      WPCRM_LAMBDA_MAX_ENVIRONMENTS: '1',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    },
  });
  try {
    // This process writes the template's table directly (organisations and credentials), as the CLI does.
    Object.assign(process.env, {
      TABLE_NAME: stack.info.tableName,
      DYNAMODB_ENDPOINT: stack.info.endpoints.dynamodb,
      AWS_ACCESS_KEY_ID: stack.info.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: stack.info.credentials.secretAccessKey,
    });
    resetConfig();
    resetDeps();
    const orgs = await provision(stack.apiUrl, options.organisations + 1);
    const [warm, ...measured] = orgs;
    for (let index = 0; index < 3; index++) await listChannels(stack.apiUrl, warm!);
    const first: number[] = [];
    const following: number[] = [];
    for (let round = 0; round < options.perOrganisation; round++) {
      for (const org of measured) (round === 0 ? first : following).push(await listChannels(stack.apiUrl, org));
    }
    const report = stack.iamReport();
    const fn = Object.keys(report.functions).find((id) => /^FoundationListChannelsFunction[0-9A-F]{8}$/.test(id));
    const stsCalls = report.functions[fn!]?.assumedSessions ?? 0;
    const denied = Object.values(report.functions).reduce(
      (sum, entry) => sum + entry.denied.reduce((total, call) => total + call.count, 0),
      0,
    );
    const requests = measured.length * options.perOrganisation + 3;
    return {
      organisations: options.organisations,
      perOrganisation: options.perOrganisation,
      requests,
      first: { p50: percentile(first, 50), p99: percentile(first, 99) },
      following: { p50: percentile(following, 50), p99: percentile(following, 99) },
      stsCalls,
      stsCallsPer1000: Math.round((stsCalls / requests) * 1000 * 10) / 10,
      denied,
    };
  } finally {
    await stack.close();
  }
}

interface Org {
  orgId: string;
  token: string;
}

async function provision(apiUrl: string, count: number): Promise<Org[]> {
  const d = deps();
  const orgs: Org[] = [];
  for (let index = 0; index < count; index++) {
    const { orgId } = await createOrg(d, { name: `Tenant ${index}` });
    const credential = await createCredential(d, { orgId, roles: ['CRM_ADMIN'] });
    // POST /token's stage throttle is 20/s: a token a little over every 50 ms.
    const started = performance.now();
    const response = await fetch(`${apiUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: credential.clientId, clientSecret: credential.clientSecret }),
    });
    if (!response.ok) throw new Error(`POST /token: ${response.status} ${await response.text()}`);
    orgs.push({ orgId, token: ((await response.json()) as { accessToken: string }).accessToken });
    const wait = 60 - (performance.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return orgs;
}

async function listChannels(apiUrl: string, org: Org): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${apiUrl}/channels/${org.orgId}`, {
    headers: { authorization: `Bearer ${org.token}` },
  });
  await response.arrayBuffer();
  const took = performance.now() - started;
  if (response.status !== 200) throw new Error(`GET /channels: ${response.status}`);
  return took;
}

export function renderTenant(figures: TenantFigures): string {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  return [
    '## Tenant-scoped credentials (bench/tenant.ts)',
    '',
    `Under \`npm run start:cdk\` (IAM enforced; the gateway's STS issues each organisation's session), one execution`,
    `environment per function: ${figures.organisations} organisations × ${figures.perOrganisation} requests to`,
    'GET /channels/{orgId} (token check, quota lease, one Query with the organisation’s credentials), in rounds: every',
    "organisation's first request, then every organisation's second, and so on, after the container was warmed by an",
    "organisation of its own. A first request pays one AssumeRole round trip to the local STS and the organisation's SDK",
    "client; the following ones reuse both. Latencies are this machine's, through the local API front and the function's",
    'process: the difference between the rows is the cost.',
    '',
    '| | p50 | p99 |',
    '|---|---|---|',
    `| P2 an organisation's first request in a warm container | ${ms(figures.first.p50)} | ${ms(figures.first.p99)} |`,
    `| P2 its following requests | ${ms(figures.following.p50)} | ${ms(figures.following.p99)} |`,
    '',
    `STS: ${figures.stsCalls} AssumeRole calls for ${figures.requests} requests over ${figures.organisations + 1} organisations`,
    `(${figures.stsCallsPer1000} per 1,000 requests): one per organisation per container, renewed after 50 minutes;`,
    `denied calls: ${figures.denied}.`,
  ].join('\n');
}
