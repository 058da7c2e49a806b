import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LocalCredentials } from './sigv4.ts';

/** The ports a running stack listens on (0 in the environment: picked free). */
export interface StackPorts {
  api: number;
  dynamodb: number;
  s3: number;
  simulator: number | null;
  aws: number;
}

interface StackInfoBase {
  pid: number;
  /** e.g. http://127.0.0.1:3000/api/wp-crm */
  apiUrl: string;
  ports: StackPorts;
  tableName: string;
  startedAt: string;
  /** The reports bucket (wpcrm org delete erases files there). */
  reportsBucket: string;
  /**
   * The key of this run (fresh at every start, CONTRACT §21): the embedded DynamoDB and S3 servers and the SQS /
   * EventBridge endpoint refuse any other signature. The CLI, the tests and the benchmarks sign with it.
   */
  credentials: LocalCredentials;
}

/** `npm start`: the queues and the bus answer at the AWS-protocol endpoint under their own names. */
export interface LocalStackInfo extends StackInfoBase {
  endpoints: { dynamodb: string; s3: string; sqs: string; eventbridge: string; graph: string };
}

/** `npm run start:cdk`: the synthesized stack's name, and every AWS call through the gateway. */
export interface CdkStackInfo extends StackInfoBase {
  deployment: 'cdk';
  stackName: string;
  /** `sqs`: the queues' own endpoint (no IAM), for operators' `wpcrm dlq …` as `npm start` has it. */
  endpoints: { dynamodb: string; s3: string; aws: string; graph: string; sqs: string };
  /** The bearer token of this run's diagnostic routes (`GET /_local/iam`), fresh at every start. */
  localRoutesToken: string;
  /**
   * The operator's session of this run at the AWS gateway (`endpoints.aws`), as the template's ChannelTokensRole: how
   * `wpcrm` reaches the channels' token secrets (`org delete`), IAM enforced like a function's calls.
   */
  operator?: { credentials: LocalCredentials & { sessionToken: string } };
}

/** What a running stack writes to `<data dir>/stack.json` for the CLI, the tests and the benchmarks (docs/local-stacks.md). */
export type StackInfo = LocalStackInfo | CdkStackInfo;

/** The servers a stack runs, as both stacks know them once they listen. */
export interface RunningServers {
  apiUrl: string;
  apiPort: number;
  dynamo: { port: number; endpoint: string };
  s3: { port: number; endpoint: string };
  simulatorPort: number | null;
  awsEndpoint: string;
  graphUrl: string;
  tableName: string;
  /** The reports bucket (wpcrm org delete erases files there). */
  reportsBucket: string;
  /** The stack's key of this run. */
  credentials: LocalCredentials;
}

function base(servers: RunningServers) {
  return {
    ports: {
      api: servers.apiPort,
      dynamodb: servers.dynamo.port,
      s3: servers.s3.port,
      simulator: servers.simulatorPort,
      aws: Number(new URL(servers.awsEndpoint).port),
    },
    tableName: servers.tableName,
    startedAt: new Date().toISOString(),
    reportsBucket: servers.reportsBucket,
    credentials: servers.credentials,
  };
}

export function localStackInfo(servers: RunningServers): LocalStackInfo {
  const { ports, tableName, startedAt, reportsBucket, credentials } = base(servers);
  const { dynamo, s3, awsEndpoint, graphUrl } = servers;
  return {
    pid: process.pid,
    apiUrl: servers.apiUrl,
    ports,
    endpoints: {
      dynamodb: dynamo.endpoint,
      s3: s3.endpoint,
      sqs: awsEndpoint,
      eventbridge: awsEndpoint,
      graph: graphUrl,
    },
    tableName,
    startedAt,
    reportsBucket,
    credentials,
  };
}

export function cdkStackInfo(
  servers: RunningServers,
  stackName: string,
  sqsEndpoint: string,
  localRoutesToken: string,
  operator?: CdkStackInfo['operator'],
): CdkStackInfo {
  const { ports, tableName, startedAt, reportsBucket, credentials } = base(servers);
  const { dynamo, s3, awsEndpoint, graphUrl } = servers;
  return {
    pid: process.pid,
    deployment: 'cdk',
    stackName,
    apiUrl: servers.apiUrl,
    ports,
    endpoints: { dynamodb: dynamo.endpoint, s3: s3.endpoint, aws: awsEndpoint, graph: graphUrl, sqs: sqsEndpoint },
    tableName,
    startedAt,
    reportsBucket,
    credentials,
    localRoutesToken,
    ...(operator ? { operator } : {}),
  };
}

/**
 * Writes `stack.json` into the data dir, readable by this user only (it holds the run's key); returns the clean-up
 * that removes it again, for a data dir that outlives the stack (an in-memory stack's whole throwaway dir goes).
 */
export async function writeStackFile(dataDir: string, info: StackInfo, inMemory: boolean) {
  const stackFile = join(dataDir, 'stack.json');
  // A new file, so that its mode applies (a stack.json left by an older run may be readable by others).
  await rm(stackFile, { force: true });
  await writeFile(stackFile, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  return inMemory ? undefined : () => rm(stackFile, { force: true });
}
