import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { LocalCredentials } from '#infra/local/sigv4';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import type { S3Location } from '#shared/adapters/s3/s3-rest';
import type { Config } from '#shared/config/env';
import { invalid, stackNotRunning } from './errors.ts';

/** Where a command reads and writes: the local stack's dynalite or a deployed stack's table. */
export interface Target {
  kind: 'local' | 'aws';
  db: DynamoDBDocumentClient;
  tableName: string;
  /** The local stack's data dir (its stack.json, logs and metrics). */
  dataDir?: string;
  /** The API's base URL (…/api/wp-crm): the local stack's from its stack.json, a deployed one's ApiUrl output. */
  apiUrl?: string;
  /** The deployed stack's name and region (`--stack`). */
  stack?: { name: string; region: string };
  /** The reports bucket, for the commands that touch files (`org delete`). */
  reports?: S3Location & { credentials?: { accessKeyId: string; secretAccessKey: string } };
  /** The local stack's key of this run (from its stack.json), for the commands that call its other endpoints. */
  credentials?: LocalCredentials;
  /**
   * start:cdk: the operator's session of this run at its AWS gateway (stack.json `operator`), as the template's
   * ChannelTokensRole, for what lives only behind the gateway (the channels' token secrets).
   */
  operator?: { endpoint: string; region: string; credentials: LocalCredentials & { sessionToken: string } };
}

/** A stack's key of this run as stack.json holds it. */
export const LocalKeySchema = v.object({
  accessKeyId: v.pipe(v.string(), v.minLength(1)),
  secretAccessKey: v.pipe(v.string(), v.minLength(1)),
});

/** The part of `StackInfo` (infra/local/stack-info.ts) the command line needs. */
const StackFile = v.object({
  endpoints: v.object({
    dynamodb: v.pipe(v.string(), v.url()),
    s3: v.optional(v.pipe(v.string(), v.url())),
    aws: v.optional(v.pipe(v.string(), v.url())),
  }),
  tableName: v.pipe(v.string(), v.minLength(1)),
  apiUrl: v.optional(v.pipe(v.string(), v.url())),
  reportsBucket: v.optional(v.pipe(v.string(), v.minLength(1))),
  credentials: v.optional(LocalKeySchema),
  operator: v.optional(v.object({ credentials: v.object({ ...LocalKeySchema.entries, sessionToken: v.string() }) })),
});

/**
 * The running local stack (CONTRACT §10): `WPCRM_DYNAMODB_PORT` when set, else `$WPCRM_DATA_DIR/stack.json`.
 * Port 0 only tells the stack to pick one, so it defers to stack.json too. The stack's key is fresh for each run
 * (CONTRACT §21): it comes from the stack.json that describes that stack, else (a stack found by its port alone) from
 * `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`.
 */
export async function localTarget(config: Config, env: Record<string, string | undefined>): Promise<Target> {
  const stackFile = join(resolve(config.local.dataDir), 'stack.json');
  const byPort = env.WPCRM_DYNAMODB_PORT !== undefined && config.local.dynamoPort !== 0;
  const described = byPort ? await readStackFile(stackFile).catch(() => undefined) : await readStackFile(stackFile);
  const endpoint = byPort ? `http://127.0.0.1:${config.local.dynamoPort}` : described!.endpoint;
  // A stack killed without clean-up leaves its stack.json behind; only a listener proves it runs.
  if (!(await answers(endpoint)))
    throw stackNotRunning(`no local stack answers at ${endpoint}; start one with npm start or npm run start:cdk`);
  // The local stack's key of this run: its servers refuse any other (and the SDK never looks up a profile).
  const credentials = stackKey(described?.endpoint === endpoint ? described.credentials : undefined, env, endpoint);
  const db = createDocumentClient({ region: config.aws.region, endpoint, credentials });
  // npm start names its table TABLE_NAME; start:cdk runs the template's generated name. Both write it to stack.json.
  const tableName =
    described?.endpoint === endpoint ? described.tableName : await onlyTable(db, config.aws.tableName, endpoint);
  const reports = {
    bucket: (described?.endpoint === endpoint && described.reportsBucket) || config.aws.reportsBucket,
    region: config.aws.region,
    endpoint: (described?.endpoint === endpoint && described.s3) || `http://127.0.0.1:${config.local.s3Port}`,
    credentials,
  };
  const operator =
    described?.endpoint === endpoint && described.aws && described.operator
      ? { endpoint: described.aws, region: config.aws.region, credentials: described.operator.credentials }
      : undefined;
  const apiUrl = described?.endpoint === endpoint ? described.apiUrl : undefined;
  return {
    kind: 'local',
    db,
    tableName,
    dataDir: resolve(config.local.dataDir),
    reports,
    credentials,
    operator,
    apiUrl,
  };
}

function stackKey(
  described: LocalCredentials | undefined,
  env: Record<string, string | undefined>,
  endpoint: string,
): LocalCredentials {
  if (described) return described;
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = env;
  if (accessKeyId && secretAccessKey) return { accessKeyId, secretAccessKey };
  throw stackNotRunning(
    `no key for the stack at ${endpoint}: set WPCRM_DATA_DIR to its data dir (its stack.json holds the key of this ` +
      'run), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to the credentials in that stack.json',
  );
}

/** The table of a stack found by its port alone: the one table it serves (the service keeps one). */
async function onlyTable(db: DynamoDBDocumentClient, fallback: string, endpoint: string): Promise<string> {
  const { TableNames = [] } = await db.send(new ListTablesCommand({}));
  if (TableNames.length === 1) return TableNames[0]!;
  if (TableNames.includes(fallback)) return fallback;
  throw stackNotRunning(
    `the stack at ${endpoint} serves ${TableNames.length} tables (${TableNames.join(', ') || 'none'}); ` +
      'set WPCRM_DATA_DIR to its data dir so that its stack.json names the table',
  );
}

async function readStackFile(file: string) {
  const text = await readFile(file, 'utf8').catch(() => {
    throw stackNotRunning(`no local stack: ${file} does not exist; start one with npm start or set WPCRM_DATA_DIR`);
  });
  const parsed = v.safeParse(StackFile, parseJson(text));
  if (!parsed.success) throw stackNotRunning(`no local stack: ${file} is not a stack description`);
  const { endpoints, tableName, reportsBucket, credentials, operator, apiUrl } = parsed.output;
  return {
    endpoint: endpoints.dynamodb,
    s3: endpoints.s3,
    aws: endpoints.aws,
    tableName,
    reportsBucket,
    credentials,
    operator,
    apiUrl,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function answers(endpoint: string, timeoutMs = 1_000): Promise<boolean> {
  const { hostname, port } = new URL(endpoint);
  return new Promise((done) => {
    const socket = connect({ host: hostname, port: Number(port) || 80, timeout: timeoutMs });
    const finish = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.once('connect', () => finish(true));
    socket.once('timeout', () => finish(false));
    socket.once('error', () => finish(false));
  });
}

/**
 * A deployed stack (`--stack <name>`): its `TableName` output, read with the default AWS credentials and region.
 * A stack that does not exist, or has no such output, is "not running" (exit 2) like a missing local stack.
 */
export async function deployedTarget(
  stackName: string,
  cfn = new CloudFormationClient({
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 2_000, requestTimeout: 10_000 },
  }),
): Promise<Target> {
  try {
    const region = await cfn.config.region().catch(() => {
      throw invalid(`--stack needs an AWS region; set AWS_REGION or a profile region`);
    });
    const { Stacks = [] } = await cfn.send(new DescribeStacksCommand({ StackName: stackName })).catch((error) => {
      // CloudFormation answers ValidationError for a stack name it does not know.
      const unknown = (error as Error).name === 'ValidationError';
      throw unknown ? stackNotRunning(`stack ${stackName} does not exist in ${region}`) : error;
    });
    const tableName = Stacks[0]?.Outputs?.find((output) => output.OutputKey === 'TableName')?.OutputValue;
    if (!tableName) throw stackNotRunning(`stack ${stackName} in ${region} has no TableName output`);
    const bucket = Stacks[0]?.Outputs?.find((output) => output.OutputKey === 'ReportsBucketName')?.OutputValue;
    const apiUrl = Stacks[0]?.Outputs?.find((output) => output.OutputKey === 'ApiUrl')?.OutputValue;
    return {
      kind: 'aws',
      db: createDocumentClient({ region }),
      tableName,
      stack: { name: stackName, region },
      ...(apiUrl ? { apiUrl } : {}),
      reports: bucket ? { bucket, region } : undefined,
    };
  } finally {
    cfn.destroy();
  }
}
