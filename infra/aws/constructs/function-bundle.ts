import type { BuildOptions } from 'esbuild';
import { FUNCTION_BUNDLING, REPO_ROOT } from './app-function.ts';

/**
 * The esbuild call NodejsFunction makes for `functions/<fn>/handler.ts` with FUNCTION_BUNDLING (aws-cdk-lib's
 * Bundling: `esbuild --bundle <entry> --target --platform=node --format --outfile=<dir>/index.mjs --minify
 * --sourcemap --sources-content --external --banner:js --main-fields --alias`, run in the project root), as JS API
 * options.
 * Benchmarks and tests bundle through this, so they measure the bytes `cdk synth` deploys (checked once against a
 * real synth asset: bench/RESULTS.md).
 */
export function functionBuildOptions(fn: string, outdir: string): BuildOptions {
  return bundleBuildOptions(`functions/${fn}/handler.ts`, outdir);
}

/** The same options for any entry file below the repository root (the benchmarks' reference handlers). */
export function bundleBuildOptions(entry: string, outdir: string): BuildOptions {
  const bundling = FUNCTION_BUNDLING;
  return {
    absWorkingDir: REPO_ROOT,
    entryPoints: [entry],
    bundle: true,
    target: bundling.target,
    platform: 'node',
    format: bundling.format,
    outfile: `${outdir}/index.mjs`,
    minify: bundling.minify,
    sourcemap: bundling.sourceMap,
    sourcesContent: bundling.sourcesContent,
    external: bundling.externalModules,
    banner: { js: bundling.banner },
    mainFields: bundling.mainFields,
    alias: Object.fromEntries([bundling.esbuildArgs['--alias'].split('=') as [string, string]]),
    metafile: true,
    logLevel: 'error',
  };
}
