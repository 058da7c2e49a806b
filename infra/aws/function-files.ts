import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RENDERER } from '#shared/docs/api-reference';
import { openApiDocument } from '#shared/openapi/document';
import { OPENAPI_FILE } from '#shared/openapi/served';
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
};

/** The functions' files of `fn` (none for most). */
export const functionFiles = (fn: string): readonly BundledFile[] => FUNCTION_FILES[fn]?.() ?? [];

let openApiFile: string | undefined;

/** openapi.json written once per process under the system's temporary directory, named by its content. */
function builtOpenApiFile(): string {
  if (!openApiFile) {
    const text = JSON.stringify(openApiDocument());
    const dir = join(tmpdir(), 'wp-crm-openapi');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${createHash('sha256').update(text).digest('hex').slice(0, 16)}.json`);
    // Written aside and renamed: a synth in another process copying the same name never reads half a file.
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, text);
    renameSync(partial, file);
    openApiFile = file;
  }
  return openApiFile;
}
