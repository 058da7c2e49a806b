import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONSOLE_ASSET_BASE } from '#shared/console/serve';
import { RENDERER } from '#shared/docs/api-reference';
import { openApiDocument } from '#shared/openapi/document';
import { OPENAPI_FILE } from '#shared/openapi/served';
import { buildConsole, CONSOLE_BUILD_FILE } from '../../console/build.ts';
import type { BundledFile } from './constructs/function-bundle.ts';

const require = createRequire(import.meta.url);

/**
 * Files a function reads at run time from beside its bundle: esbuild cannot follow a file read, so the bundling
 * copies each one into the function's asset. Each entry is computed when a stack asks for it (the document is built
 * once per synth, not by every import of this module).
 */
export const FUNCTION_FILES: Readonly<Record<string, () => readonly BundledFile[]>> = {
  'get-docs': () => [{ source: require.resolve(RENDERER.module), name: RENDERER.file }],
  // openapi.json as built from the schemas at synth: the function reads it instead of building it at cold start.
  'get-openapi': () => [{ source: builtOpenApiFile(), name: OPENAPI_FILE }],
  // The console (CONTRACT §24), built at synth like openapi.json: its page and assets are the function's to serve.
  'get-console': () => [{ source: builtConsoleFile(), name: CONSOLE_BUILD_FILE }],
};

/** The functions' files of `fn` (none for most). */
export const functionFiles = (fn: string): readonly BundledFile[] => FUNCTION_FILES[fn]?.() ?? [];

let openApiFile: string | undefined;
let consoleFile: string | undefined;

/** openapi.json written once per process under the system's temporary directory, named by its content. */
function builtOpenApiFile(): string {
  openApiFile ??= writeBuilt('wp-crm-openapi', JSON.stringify(openApiDocument()));
  return openApiFile;
}

/** The console's build (console/build.ts), once per process, the same way. */
function builtConsoleFile(): string {
  consoleFile ??= writeBuilt('wp-crm-console', JSON.stringify(buildConsole(CONSOLE_ASSET_BASE)));
  return consoleFile;
}

function writeBuilt(folder: string, text: string): string {
  const dir = join(tmpdir(), folder);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${createHash('sha256').update(text).digest('hex').slice(0, 16)}.json`);
  // Written aside and renamed: a synth in another process copying the same name never reads half a file.
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, text);
  renameSync(partial, file);
  return file;
}
