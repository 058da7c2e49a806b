import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { RouteNotFoundError } from '#shared/errors';
import type { HttpResult } from '#shared/http/responses';

/**
 * The renderer: Redoc's self-contained browser build. It needs no CDN and no web fonts, so the page works offline.
 * The Lambda asset carries a copy beside the bundle (infra/aws/function-files.ts); the local stack, which runs the
 * sources, reads it from node_modules.
 */
export const RENDERER = { module: 'redoc/bundles/redoc.standalone.js', file: 'redoc.standalone.js' } as const;

/**
 * Scripts and styles only from the service itself. Redoc renders with styled-components, which writes `<style>`
 * elements and `style` attributes at run time: those need 'unsafe-inline' for styles (never for scripts). Its search
 * index runs in a worker that its own script creates from a `blob:` URL.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The one request the renderer makes off the service on its own: Redocly's logo in the sidebar's attribution, from
 * their CDN. It becomes an empty inline image, so the page loads nothing from elsewhere (and CSP reports nothing).
 */
const REMOTE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const EMPTY_IMAGE = `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>').toString('base64')}`;

interface Script {
  /** The URL segment it is served under, named by its content so that it can be cached as immutable. */
  name: string;
  raw: Buffer;
  gzip?: Buffer;
}

let script: Script | undefined;

/** Read once per container, on first use: the page needs the name, the asset route the bytes. */
function rendererScript(): Script {
  if (!script) {
    const bundled = fileURLToPath(new URL(RENDERER.file, import.meta.url));
    const path = existsSync(bundled) ? bundled : createRequire(import.meta.url).resolve(RENDERER.module);
    const raw = Buffer.from(readFileSync(path, 'utf8').replace(REMOTE_LOGO, EMPTY_IMAGE));
    script = { name: `redoc.${createHash('sha256').update(raw).digest('hex').slice(0, 16)}.js`, raw };
  }
  return script;
}

// Relative URLs: the page is `<base>/docs`, so they resolve below the API's base path on any host or mapping.
const page = (scriptName: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>wp-crm API reference</title>
<style>body{margin:0}</style>
</head>
<body>
<redoc spec-url="openapi.json" required-props-first="true" expand-responses="200,201,202" path-in-middle-panel="true"></redoc>
<script src="docs/${scriptName}"></script>
</body>
</html>
`;

/** True unless the client does not list gzip, or refuses it with q=0. */
function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [coding, ...params] = part.split(';').map((token) => token.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='));
    return coding === 'gzip' && (q === undefined || Number(q.slice(2)) > 0);
  });
}

function scriptResponse(asset: Script, acceptEncoding: string | undefined): HttpResult {
  const headers = {
    'content-type': 'text/javascript; charset=utf-8',
    'cache-control': 'public, max-age=31536000, immutable',
    'x-content-type-options': 'nosniff',
    vary: 'accept-encoding',
  };
  if (!acceptsGzip(acceptEncoding)) {
    return { statusCode: 200, headers, body: asset.raw.toString('base64'), isBase64Encoded: true };
  }
  asset.gzip ??= gzipSync(asset.raw);
  return {
    statusCode: 200,
    headers: { ...headers, 'content-encoding': 'gzip' },
    body: asset.gzip.toString('base64'),
    isBase64Encoded: true,
  };
}

/**
 * `GET /docs`: the reference page, which renders openapi.json in the browser; `GET /docs/{asset}`: the renderer's
 * script it loads. Any other asset name → 404 ROUTE_NOT_FOUND.
 */
export function serveApiReference(
  event: Pick<APIGatewayProxyEventV2, 'pathParameters' | 'headers' | 'rawPath'>,
): HttpResult {
  const asset = rendererScript();
  const requested = event.pathParameters?.asset;
  if (requested === undefined) {
    return {
      statusCode: 200,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': CONTENT_SECURITY_POLICY,
        'cache-control': 'no-cache',
        'referrer-policy': 'no-referrer',
        'x-content-type-options': 'nosniff',
      },
      body: page(asset.name),
    };
  }
  if (requested !== asset.name) throw new RouteNotFoundError('GET', event.rawPath);
  return scriptResponse(asset, event.headers['accept-encoding']);
}
