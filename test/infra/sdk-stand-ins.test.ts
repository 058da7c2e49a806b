import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bundleBuildOptions,
  FUNCTION_BUNDLING,
  NO_ENDPOINT_DISCOVERY,
  NO_EVENT_STREAMS,
} from '#infra/aws/constructs/function-bundle';
import { UNSUPPORTED as NO_DISCOVERY } from '#shared/adapters/aws/no-endpoint-discovery';
import { UNSUPPORTED } from '#shared/adapters/aws/no-event-streams';
import type { exercise } from '#test/fixtures/bundles/sdk-clients';

const ENTRY = 'test/fixtures/bundles/sdk-clients.ts';

function inputs(metafile: Metafile): string[] {
  const output = Object.values(metafile.outputs).find((out) => out.entryPoint);
  return Object.entries(output!.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([file]) => file);
}

/**
 * The stand-ins for `@smithy/core/event-streams` (shared/adapters/aws/no-event-streams.ts) and
 * `@aws-sdk/middleware-endpoint-discovery` (shared/adapters/aws/no-endpoint-discovery.ts), bundled as every function
 * is (FUNCTION_BUNDLING), under the real SDK clients: the S3 client, which builds its event-stream serde config when
 * constructed, still presigns, sends and multipart-uploads, every other client the functions use still signs and
 * reads its answers, the one S3 operation with an event stream fails with the stand-in's message, and a DynamoDB
 * client told to discover endpoints refuses to be built.
 */
describe('the SDK stand-ins under the real SDK clients, from a bundle', () => {
  let outdir: string;
  let files: string[];
  let run: Awaited<ReturnType<typeof exercise>>;

  beforeAll(async () => {
    outdir = await mkdtemp(join(tmpdir(), 'wpcrm-event-streams-'));
    const result = await build(bundleBuildOptions(ENTRY, outdir));
    files = inputs(result.metafile!);
    const bundle = (await import(pathToFileURL(join(outdir, 'index.mjs')).href)) as { exercise: typeof exercise };
    run = await bundle.exercise();
  }, 120_000);

  afterAll(async () => {
    await rm(outdir, { recursive: true, force: true });
  });

  it('is what the stack bundles in place of @smithy/core/event-streams', () => {
    expect(FUNCTION_BUNDLING.alias['@smithy/core/event-streams']).toBe(NO_EVENT_STREAMS);
    expect(files).toContain(NO_EVENT_STREAMS.slice(2));
    expect(files.filter((file) => file.includes('/submodules/event-streams/'))).toEqual([]);
    expect(files.some((file) => file.includes('/@aws-sdk/client-s3/'))).toBe(true);
  });

  it('lets the S3 client presign a GET (SigV4 in the query, 300 s)', () => {
    const url = new URL(run.presigned);

    expect(url.host).toBe('reports.s3.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/a/b.csv');
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request$/);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('sends, signs and reads PutObject, GetObject, HeadObject, DeleteObject and a multipart Upload', () => {
    const s3 = run.sent.filter((request) => request.hostname.endsWith('.s3.eu-west-1.amazonaws.com'));

    expect(s3.map((request) => `${request.method} ${request.path}`)).toEqual([
      'PUT /a/b.csv',
      'GET /a/b.csv',
      'HEAD /a/b.csv',
      'DELETE /a/b.csv',
      'POST /big.csv',
      'PUT /big.csv',
      'PUT /big.csv',
      'POST /big.csv',
      'POST /a/b.csv',
    ]);
    for (const request of s3) {
      expect(request.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request, SignedHeaders=.+, Signature=[0-9a-f]{64}$/,
      );
    }
    expect(run.results).toMatchObject({
      putETag: '"put"',
      text: 'hello',
      headLength: 5,
      multipartETag: '"whole"',
    });
  });

  it('is what the stack bundles in place of @aws-sdk/middleware-endpoint-discovery, without its cache', () => {
    expect(FUNCTION_BUNDLING.alias['@aws-sdk/middleware-endpoint-discovery']).toBe(NO_ENDPOINT_DISCOVERY);
    expect(files).toContain(NO_ENDPOINT_DISCOVERY.slice(2));
    expect(
      files.filter((file) =>
        /\/(mnemonist|obliterator|@aws-sdk\/(endpoint-cache|middleware-endpoint-discovery))\//.test(file),
      ),
    ).toEqual([]);
  });

  it('resolves DynamoDB’s endpoint-discovery setting as the SDK does, and refuses a client told to discover', () => {
    expect(run.results.discoveryByDefault).toBeUndefined();
    expect(run.results.discoveryOff).toBe(false);
    expect(run.results.discoveryOn).toBe(NO_DISCOVERY);
  });

  it('fails an operation with an event stream with the stand-in’s message', () => {
    expect(run.results.eventStream).toContain(UNSUPPORTED);
  });

  it('leaves DynamoDB, SQS, EventBridge, KMS and Secrets Manager signing and reading their answers', () => {
    const services = run.sent
      .filter((request) => request.headers['x-amz-target'])
      .map((request) => /Credential=[^/]+\/\d{8}\/eu-west-1\/([a-z]+)\//.exec(request.headers.authorization!)?.[1]);

    expect(services).toEqual(['dynamodb', 'sqs', 'events', 'kms', 'secretsmanager']);
    expect(run.results).toMatchObject({
      item: { pk: { S: 'a' } },
      messageId: 'm-1',
      eventId: 'e-1',
      plaintext: 'hi',
      secret: 'shh',
    });
  });
});
