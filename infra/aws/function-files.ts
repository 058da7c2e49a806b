import { createRequire } from 'node:module';
import { RENDERER } from '#shared/docs/api-reference';
import type { BundledFile } from './constructs/function-bundle.ts';

const require = createRequire(import.meta.url);

/**
 * Files a function reads at run time from beside its bundle: esbuild cannot follow a file read, so the bundling
 * copies each one into the function's asset.
 */
export const FUNCTION_FILES: Readonly<Record<string, readonly BundledFile[]>> = {
  'get-docs': [{ source: require.resolve(RENDERER.module), name: RENDERER.file }],
};
