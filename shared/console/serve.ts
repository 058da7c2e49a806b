import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { RouteNotFoundError } from '#shared/errors';
import type { HttpResult } from '#shared/http/responses';
import { BASE_PATH } from '#shared/routes/route';
import { isConsolePage } from '#shared/schemas/console';

/** Where the page loads its assets from: absolute, so every page URL below /console finds them. */
export const CONSOLE_ASSET_BASE = `${BASE_PATH}/console`;

/** Scripts are served below `/console/scripts/`, style sheets below `/console/styles/` (each route one media type). */
const ASSET_FOLDERS: Record<string, string> = { js: 'scripts', css: 'styles' };

interface Build {
  html: string;
  assets: Record<string, { contentType: string; text: string; gzip?: Buffer }>;
}

/** The build module, for the sources run by `npm start` (a deployed bundle carries the build beside it instead). */
const BUILDER = '../../console/build.ts';

let build: Promise<Build> | undefined;

/**
 * The console's build, once per process: the file beside a deployed bundle (built at synth,
 * infra/aws/function-files.ts), or, running from the sources (`npm start`, tests), built now with esbuild. The
 * builder is imported by a computed name so that a function's bundle never contains esbuild.
 */
export function consoleBuild(file: URL): Promise<Build> {
  build ??= readFile(file, 'utf8')
    .then((text) => JSON.parse(text) as Build)
    .catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
      const builder = BUILDER;
      const { buildConsole } = (await import(builder)) as { buildConsole(base: string): Build };
      return buildConsole(CONSOLE_ASSET_BASE);
    });
  build.catch(() => {
    build = undefined;
  });
  return build;
}

/**
 * The console's Content-Security-Policy (CONTRACT §24): everything from the service itself, no inline script, no
 * other origin; framing only by the origins an operator lists in CONSOLE_FRAME_ANCESTORS.
 */
export function consolePolicy(frameAncestors: readonly string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
    `frame-ancestors ${frameAncestors.length > 0 ? frameAncestors.join(' ') : "'none'"}`,
  ].join('; ');
}

/** True unless the client does not list gzip, or refuses it with q=0. */
function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [coding, ...params] = part.split(';').map((token) => token.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='));
    return coding === 'gzip' && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/**
 * `GET /console`, `/console/{page}`, `/console/{page}/{id}`: the page (one document; the script draws the page its
 * address names). `GET /console/scripts/{asset}`, `/console/styles/{asset}`: its script and style sheet. Anything else → 404 ROUTE_NOT_FOUND.
 */
export async function serveConsole(
  event: Pick<APIGatewayProxyEventV2, 'pathParameters' | 'headers' | 'rawPath'>,
  options: { file: URL; frameAncestors: readonly string[] },
): Promise<HttpResult> {
  const built = await consoleBuild(options.file);
  // An empty segment (`/console/`, `/console/groups/`, should a gateway hand one to these routes) is no segment.
  const { asset, page, id } = Object.fromEntries(
    Object.entries(event.pathParameters ?? {}).filter(([, value]) => value !== ''),
  ) as Record<string, string | undefined>;
  if (asset !== undefined) {
    const found = Object.hasOwn(built.assets, asset) ? built.assets[asset] : undefined;
    const folder = ASSET_FOLDERS[asset.slice(asset.lastIndexOf('.') + 1)];
    if (!found || !event.rawPath.endsWith(`/console/${folder}/${asset}`)) {
      throw new RouteNotFoundError('GET', event.rawPath);
    }
    const headers = {
      'content-type': found.contentType,
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      vary: 'accept-encoding',
    };
    if (!acceptsGzip(event.headers['accept-encoding'])) return { statusCode: 200, headers, body: found.text };
    found.gzip ??= gzipSync(found.text);
    return {
      statusCode: 200,
      headers: { ...headers, 'content-encoding': 'gzip' },
      body: found.gzip.toString('base64'),
      isBase64Encoded: true,
    };
  }
  if (!isConsolePage(page, id)) throw new RouteNotFoundError('GET', event.rawPath);
  return {
    statusCode: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': consolePolicy(options.frameAncestors),
      'cache-control': 'no-cache',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'cross-origin-opener-policy': 'same-origin',
    },
    body: built.html,
  };
}
