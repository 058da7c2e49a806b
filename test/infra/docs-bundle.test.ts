import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { App, Stack } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppFunction } from '#infra/aws/constructs/app-function';
import { functionFiles } from '#infra/aws/function-files';
import type { HttpResult } from '#shared/http/responses';
import { openApiDocument } from '#shared/openapi/document';

type Handler = (event: unknown, context: unknown) => Promise<HttpResult>;

const CONTEXT = { awsRequestId: 'test', functionName: 'get-docs', getRemainingTimeInMillis: () => 10_000 };
const event = (path: string, asset?: string) => ({
  version: '2.0',
  rawPath: `/api/wp-crm${path}`,
  headers: { 'accept-encoding': 'gzip, deflate, br' },
  pathParameters: asset ? { asset } : undefined,
  requestContext: { requestId: 'test', domainName: 'api.example.test', http: { method: 'GET', path } },
});

describe('get-docs Lambda asset (bundled for real)', () => {
  let outdir: string;
  let assetDir: string;

  beforeAll(() => {
    outdir = mkdtempSync(join(tmpdir(), 'wpcrm-docs-synth-'));
    const app = new App({ outdir, builtinCloudFormationValidation: false });
    new AppFunction(new Stack(app, 'Docs'), 'GetDocs', { fn: 'get-docs', files: functionFiles('get-docs') });
    app.synth();
    const assets = readdirSync(outdir).filter((name) => existsSync(join(outdir, name, 'index.mjs')));
    assetDir = join(outdir, assets[0]!);
  });

  afterAll(() => {
    if (outdir) rmSync(outdir, { recursive: true, force: true });
  });

  it('carries the renderer next to index.mjs', () => {
    expect(readdirSync(assetDir).sort()).toEqual(['index.mjs', 'index.mjs.map', 'redoc.standalone.js']);
  });

  it('serves the page and, from that copy, the script it names', async () => {
    const { handler } = (await import(pathToFileURL(join(assetDir, 'index.mjs')).href)) as { handler: Handler };

    const page = await handler(event('/docs'), CONTEXT);
    const name = /src="docs\/(redoc\.[0-9a-f]{16}\.js)"/.exec(String(page.body))![1]!;
    const script = await handler(event(`/docs/${name}`, name), CONTEXT);

    expect(page.statusCode).toBe(200);
    expect(script.statusCode).toBe(200);
    expect(script.headers?.['content-encoding']).toBe('gzip');
    const served = gunzipSync(Buffer.from(String(script.body), 'base64')).toString();
    const copied = readFileSync(join(assetDir, 'redoc.standalone.js'), 'utf8');
    expect(served.includes('cdn.redoc.ly')).toBe(false);
    expect(served.slice(0, 1000)).toBe(copied.slice(0, 1000));
    expect(Math.abs(served.length - copied.length)).toBeLessThan(200);
  });
});

describe('get-openapi Lambda asset (bundled for real)', () => {
  let outdir: string;
  let assetDir: string;

  beforeAll(() => {
    outdir = mkdtempSync(join(tmpdir(), 'wpcrm-openapi-synth-'));
    const app = new App({ outdir, builtinCloudFormationValidation: false });
    new AppFunction(new Stack(app, 'OpenApi'), 'GetOpenApi', {
      fn: 'get-openapi',
      files: functionFiles('get-openapi'),
    });
    app.synth();
    const assets = readdirSync(outdir).filter((name) => existsSync(join(outdir, name, 'index.mjs')));
    assetDir = join(outdir, assets[0]!);
  });

  afterAll(() => {
    if (outdir) rmSync(outdir, { recursive: true, force: true });
  });

  it('carries the document built at synth, and serves it with this deployment as its server', async () => {
    const built = JSON.parse(JSON.stringify(openApiDocument())) as Record<string, unknown>;
    expect(readdirSync(assetDir).sort()).toEqual(['index.mjs', 'index.mjs.map', 'openapi.json']);
    expect(JSON.parse(readFileSync(join(assetDir, 'openapi.json'), 'utf8'))).toEqual(built);

    const { handler } = (await import(pathToFileURL(join(assetDir, 'index.mjs')).href)) as { handler: Handler };
    const served = await handler(event('/openapi.json'), { ...CONTEXT, functionName: 'get-openapi' });

    expect(served.statusCode).toBe(200);
    const document = JSON.parse(String(served.body)) as Record<string, unknown>;
    expect(document.servers).toEqual([{ url: 'http://api.example.test', description: 'This deployment' }]);
    expect({ ...document, servers: undefined }).toEqual({ ...built, servers: undefined });
  });
});
