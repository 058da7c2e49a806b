import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, type BundlingOptions, DockerImage } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { type BuildOptions, buildSync } from 'esbuild';

/** The repository root: entries, package-lock.json and tsconfig live there, wherever cdk or vitest runs from. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The module bundled in place of the SDK's default credential chain, relative to REPO_ROOT (esbuild's cwd). */
export const LAMBDA_CREDENTIALS = './shared/adapters/aws/lambda-credentials.ts';

/**
 * The module bundled in place of `@smithy/core/event-streams`, relative to REPO_ROOT: no operation the functions call
 * has an event stream, and the real module costs every function with an SDK client about 160 lazily wrapped
 * @smithy/core modules at load (shared/adapters/aws/no-event-streams.ts says why; bench/RESULTS.md, P1).
 */
export const NO_EVENT_STREAMS = './shared/adapters/aws/no-event-streams.ts';

/**
 * The module bundled in place of `@aws-sdk/middleware-endpoint-discovery`, relative to REPO_ROOT: the DynamoDB client
 * resolves its endpoint-discovery configuration, which no command of it reads, and with it builds an LRU cache from
 * three more packages (shared/adapters/aws/no-endpoint-discovery.ts says why; bench/RESULTS.md, P1).
 */
export const NO_ENDPOINT_DISCOVERY = './shared/adapters/aws/no-endpoint-discovery.ts';

/**
 * How every function is bundled (ARCHITECTURE, TOOLCHAIN §5): one ESM file with the SDK inside, module-first
 * mainFields (about a third smaller and faster to load than esbuild's default for node), and source maps without
 * the sources (the stack traces need only the mappings).
 */
export const FUNCTION_BUNDLING = {
  format: 'esm',
  mainFields: ['module', 'main'],
  target: 'node22',
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  externalModules: [] as string[],
  banner: "import{createRequire}from'module';const require=createRequire(import.meta.url);",
  // Lambda's credentials are in the environment: the SDK's default chain is bundled as the environment provider
  // alone (shared/adapters/aws/lambda-credentials.ts says why). And the SDK's event-stream support, which no
  // operation here uses, as a stand-in that ends the graph (shared/adapters/aws/no-event-streams.ts). And DynamoDB's
  // endpoint discovery, which none of its commands uses, without its cache (shared/adapters/aws/no-endpoint-discovery.ts).
  alias: {
    '@aws-sdk/credential-provider-node': LAMBDA_CREDENTIALS,
    '@smithy/core/event-streams': NO_EVENT_STREAMS,
    '@aws-sdk/middleware-endpoint-discovery': NO_ENDPOINT_DISCOVERY,
  },
} as const;

/** A file the function reads at run time from beside its bundle (`new URL(name, import.meta.url)`). */
export interface BundledFile {
  /** Absolute path of the file to copy. */
  source: string;
  /** Its name in the asset, next to `index.mjs`. */
  name: string;
}

/**
 * The esbuild call that bundles `functions/<fn>/handler.ts` with FUNCTION_BUNDLING: one ESM file `index.mjs` (and
 * its source map) in `outdir`. The stack's assets, the benchmarks and the bundle tests all build through this, so
 * they measure the bytes `cdk deploy` uploads.
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
    external: [...bundling.externalModules],
    banner: { js: bundling.banner },
    mainFields: [...bundling.mainFields],
    alias: { ...bundling.alias },
    metafile: true,
    logLevel: 'error',
  };
}

/**
 * A function's code asset, bundled in the synth's own process by esbuild's API. NodejsFunction spawns an
 * `npx esbuild` process per function, which costs about 0.9 s each (TOOLCHAIN §2) and most of a 50-function synth;
 * the same build in-process takes a fraction of it. No Docker: the local bundling always succeeds or throws. The
 * asset hash is the output's, so an unchanged bundle keeps its asset. Files esbuild cannot see (`files`) are copied
 * beside the bundle.
 */
export function functionCode(fn: string, files: readonly BundledFile[] = []): Code {
  return Code.fromAsset(REPO_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: the local bundling below always answers.
      image: DockerImage.fromRegistry('wp-crm-esbuild-in-process'),
      local: new EsbuildBundling(fn, files),
    } satisfies BundlingOptions,
  });
}

class EsbuildBundling {
  // Public fields: CDK keys its asset cache (and the bundling directory) on the bundling options' JSON.
  constructor(
    readonly fn: string,
    readonly files: readonly BundledFile[],
  ) {}

  tryBundle(outputDir: string): boolean {
    buildSync({ ...functionBuildOptions(this.fn, outputDir), metafile: false });
    for (const file of this.files) copyFileSync(file.source, join(outputDir, file.name));
    return true;
  }
}
