import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

/** The console's files as the service serves them (functions/get-console): its page and its named assets. */
export interface ConsoleBuild {
  /** The one HTML document every page URL answers with. */
  html: string;
  /** By file name (named by content): its media type and text. */
  assets: Record<string, { contentType: string; text: string }>;
}

/** The file the get-console function's asset carries (infra/aws/function-files.ts), beside its bundle. */
export const CONSOLE_BUILD_FILE = 'console-build.json';

const ENTRY = fileURLToPath(new URL('./src/main.tsx', import.meta.url));
/** Its compiler settings (JSX for Preact, the DOM) and the typed client's source (`@wp-crm/client`). */
const TSCONFIG = fileURLToPath(new URL('./tsconfig.json', import.meta.url));
const NO_STANDARD_WEBHOOKS = fileURLToPath(new URL('./src/no-standard-webhooks.ts', import.meta.url));
const MEDIA_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * Builds the console with esbuild (already the functions' bundler): one minified ES module and one style sheet, each
 * named by its content hash, and the HTML page that loads them from `assetBase`/scripts and /styles. Synchronous, so a synth can call it
 * where it lists a function's files; about 0.2 s.
 */
export function buildConsole(assetBase: string): ConsoleBuild {
  const result = buildSync({
    entryPoints: { app: ENTRY },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    minify: true,
    tsconfig: TSCONFIG,
    alias: { standardwebhooks: NO_STANDARD_WEBHOOKS },
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: '/console-out',
    write: false,
    legalComments: 'none',
    logLevel: 'error',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const assets: ConsoleBuild['assets'] = {};
  const names: Record<string, string> = {};
  for (const file of result.outputFiles) {
    const extension = file.path.slice(file.path.lastIndexOf('.'));
    const contentType = MEDIA_TYPES[extension];
    if (!contentType) continue;
    const hash = createHash('sha256').update(file.contents).digest('hex').slice(0, 12);
    const name = `app.${hash}${extension}`;
    names[extension] = name;
    assets[name] = { contentType, text: file.text };
  }
  return { html: page(assetBase, names['.js']!, names['.css']!), assets };
}

const page = (base: string, script: string, styles: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>wp-crm console</title>
<link rel="stylesheet" href="${base}/styles/${styles}">
<script type="module" src="${base}/scripts/${script}"></script>
</head>
<body>
<div id="app"><p class="loading">Loading the console…</p></div>
</body>
</html>
`;
