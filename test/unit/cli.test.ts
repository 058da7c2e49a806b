import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '#bin/cli/main';

const cfn = mockClient(CloudFormationClient);
const db = mockClient(DynamoDBDocumentClient);
const ORG = '0c4f6d1e-1111-4222-8333-444455556666';

async function wpcrm(argv: string[], env?: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await main(argv, { out: (line) => out.push(line), err: (line) => err.push(line) }, env);
  return { status, out, err: err.map((line) => JSON.parse(line)) };
}

const stackOutputs = (outputs: { OutputKey: string; OutputValue: string }[]) =>
  cfn.on(DescribeStacksCommand, { StackName: 'wpcrm-dev' }).resolves({
    Stacks: [{ StackName: 'wpcrm-dev', StackStatus: 'CREATE_COMPLETE', CreationTime: new Date(), Outputs: outputs }],
  });

const awsError = (name: string, message: string) => Object.assign(new Error(message), { name });

describe('wpcrm --stack', () => {
  beforeEach(() => {
    cfn.reset();
    db.reset();
  });

  it("writes to the table named by the stack's TableName output", async () => {
    stackOutputs([{ OutputKey: 'TableName', OutputValue: 'wpcrm-dev-Table1234' }]);
    db.on(PutCommand).resolves({});

    const run = await wpcrm(['org', 'create', '--name', 'Acme', '--stack', 'wpcrm-dev']);

    expect(run).toMatchObject({ status: 0, err: [] });
    const { orgId } = JSON.parse(run.out[0]!);
    expect(db.commandCalls(PutCommand)[0]?.args[0].input).toMatchObject({
      TableName: 'wpcrm-dev-Table1234',
      Item: { entity: 'ORG', name: 'Acme', orgId },
    });
  });

  it('exits 2 with STACK_NOT_RUNNING for a stack that does not exist', async () => {
    cfn.on(DescribeStacksCommand).rejects(awsError('ValidationError', 'Stack with id nope does not exist'));

    const run = await wpcrm(['org', 'create', '--name', 'Acme', '--stack', 'nope']);

    expect(run).toEqual({
      status: 2,
      out: [],
      err: [{ error: { code: 'STACK_NOT_RUNNING', message: 'stack nope does not exist in eu-west-1' } }],
    });
    expect(db.calls()).toHaveLength(0);
  });

  it('exits 2 with STACK_NOT_RUNNING for a stack without a TableName output', async () => {
    stackOutputs([{ OutputKey: 'ApiUrl', OutputValue: 'https://example.com' }]);

    const run = await wpcrm(['org', 'create', '--name', 'Acme', '--stack', 'wpcrm-dev']);

    expect(run.status).toBe(2);
    expect(run.err).toEqual([{ error: { code: 'STACK_NOT_RUNNING', message: expect.stringMatching(/TableName/) } }]);
  });

  it('refuses to store a channel access token in a deployed table', async () => {
    stackOutputs([{ OutputKey: 'TableName', OutputValue: 'wpcrm-dev-Table1234' }]);
    const channel = ['channel', 'create', '--org', ORG, '--name', 'WA', '--type', 'MESSAGING_OFFICIAL'];

    const run = await wpcrm([
      ...channel,
      '--phone',
      '+4915100000001',
      '--access-token',
      'tok-1',
      '--stack',
      'wpcrm-dev',
    ]);

    expect(run.status).toBe(1);
    expect(run.err).toEqual([
      { error: { code: 'VALIDATION_FAILED', message: expect.stringMatching(/--access-token/) } },
    ]);
    expect(JSON.stringify(run.err)).not.toContain('tok-1');
    expect(db.calls()).toHaveLength(0);
  });

  it('reports an unexpected SDK error as INTERNAL without its message', async () => {
    stackOutputs([{ OutputKey: 'TableName', OutputValue: 'wpcrm-dev-Table1234' }]);
    db.on(GetCommand).rejects(awsError('AccessDeniedException', 'User arn:aws:iam::1:user/x is not authorized'));

    const run = await wpcrm(['credential', 'create', '--org', ORG, '--roles', 'CRM_BOT', '--stack', 'wpcrm-dev']);

    expect(run).toEqual({
      status: 1,
      out: [],
      err: [{ error: { code: 'INTERNAL', message: 'unexpected error (AccessDeniedException)' } }],
    });
  });
});

describe('wpcrm', () => {
  let env: Record<string, string>;
  beforeEach(async () => {
    env = { WPCRM_DATA_DIR: await mkdtemp(join(tmpdir(), 'wpcrm-cli-')) };
  });
  afterEach(async () => {
    await rm(env.WPCRM_DATA_DIR!, { recursive: true, force: true });
  });

  it('prints every command in its help', async () => {
    const run = await wpcrm(['--help'], env);

    expect(run.status).toBe(0);
    expect(run.out.join('\n')).toMatch(/org create[\s\S]*credential create[\s\S]*channel create/);
  });

  it.for<[string, string[], RegExp]>([
    ['an unknown command', ['org', 'explode'], /unknown command "org explode"/],
    ['an unknown flag', ['org', 'create', '--name', 'A', '--colour', 'red'], /--colour/],
    ['a blank value', ['org', 'create', '--name', ' '], /--name must not be empty/],
    ['an organisation id that is no UUID', ['credential', 'create', '--org', 'ACME', '--roles', 'CRM_BOT'], /--org/],
    [
      'a boolean flag that is not true or false',
      [
        'channel',
        'create',
        '--org',
        ORG,
        '--name',
        'A',
        '--type',
        'EMAIL',
        '--phone',
        '+4915100000001',
        '--groups-eligible',
        'yes',
      ],
      /--groups-eligible/,
    ],
  ])('exits 1 with VALIDATION_FAILED, before looking for a stack, for %s', async ([, argv, message]) => {
    const run = await wpcrm(argv, env);

    expect(run).toEqual({
      status: 1,
      out: [],
      err: [{ error: { code: 'VALIDATION_FAILED', message: expect.stringMatching(message) } }],
    });
  });

  it('exits 2 with STACK_NOT_RUNNING when the data dir has no stack.json', async () => {
    const run = await wpcrm(['org', 'create', '--name', 'Acme'], env);

    expect(run).toMatchObject({ status: 2, out: [], err: [{ error: { code: 'STACK_NOT_RUNNING' } }] });
  });
});
