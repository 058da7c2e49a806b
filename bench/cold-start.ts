import { execFile } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { bundleBuildOptions, functionBuildOptions } from '#infra/aws/constructs/function-bundle';
import { median } from './stats.ts';

const run = promisify(execFile);
const PROBE = new URL('./import-probe.mjs', import.meta.url).pathname;

/** The baselines built beside the functions, with the same options. */
export const BASELINES = {
  empty: 'bench/reference/empty-handler.ts',
  reference: 'bench/reference/handler.ts',
  'reference, clients on first use': 'bench/reference/lazy-handler.ts',
} as const;

/**
 * Measured beside the baselines, never deployed. The reference bundled with the stack's aliases (FUNCTION_BUNDLING:
 * the SDK's default chain as the environment provider, and the event-streams stand-in): the baselines themselves are
 * built without them, as issue 10 defines the reference (a best-practice bundle with the SDK as it ships); this row
 * shows how much of the functions' lead over the reference is those bundling choices. And the largest queue
 * workers built without FUNCTION_BUNDLING's event-streams stand-in (`@smithy/core/event-streams` bundled as the SDK
 * ships it; shared/adapters/aws/no-event-streams.ts), which shows what the stand-in gains, and two functions without
 * the endpoint-discovery stand-in (shared/adapters/aws/no-endpoint-discovery.ts), likewise (each measured only when
 * its function is).
 */
export const WHAT_IF: { name: string; entry: string; dropAlias?: string[]; fn?: string }[] = [
  { name: 'reference, with the stack’s aliases', entry: BASELINES.reference },
  ...['report-worker', 'group-worker', 'webhook-dispatcher', 'message-sender'].map((fn) => ({
    name: `${fn}, without the event-streams stand-in`,
    entry: `functions/${fn}/handler.ts`,
    dropAlias: ['@smithy/core/event-streams'],
    fn,
  })),
  ...['report-worker', 'get-group-status'].map((fn) => ({
    name: `${fn}, without the endpoint-discovery stand-in`,
    entry: `functions/${fn}/handler.ts`,
    dropAlias: ['@aws-sdk/middleware-endpoint-discovery'],
    fn,
  })),
];

export interface BundleFigures {
  name: string;
  bytes: number;
  mapBytes: number;
  /** Median import time in a fresh process, ms. */
  importMs: number;
  samples: number[];
  /** Bytes per npm package (or own source folder) in the bundle, largest first. */
  packages: [string, number][];
}

export interface ColdStartResult {
  functions: BundleFigures[];
  whatIf: BundleFigures[];
  baselines: Record<keyof typeof BASELINES, BundleFigures>;
  samplesPerBundle: number;
  /** The core every import of the run was pinned to, and each core's median reference import that chose it. */
  pinning?: { core: number; referenceMsByCore: number[] };
}

/**
 * The core to pin every probe of a run to, or undefined where `taskset` is missing (not Linux) or there is one core.
 * Unpinned, each fresh process lands on whichever core the scheduler picks, and on this machine's two shared cores
 * one imports the same bundle about 40 % slower than the other (2026-11-28: the reference 146 ms on core 0, 101 ms
 * on core 1, every sample of a core within a few ms): the samples of one bundle fell into two groups ~30 ms apart,
 * so a median moved with the share of samples that happened to land on the slow core, and one function's ratio
 * moved by 0.2 between runs. Pinned, the whole process (V8's helper threads too, as on a Lambda function with less
 * than one vCPU) runs on one core, the fastest of a short calibration with the reference bundle.
 */
async function pinnedCore(referenceFile: string, env: NodeJS.ProcessEnv) {
  if (process.platform !== 'linux' || availableParallelism() < 2) return undefined;
  try {
    await run('taskset', ['-p', String(process.pid)]);
  } catch {
    return undefined;
  }
  const referenceMsByCore: number[] = [];
  for (let core = 0; core < Math.min(availableParallelism(), 8); core++) {
    const times: number[] = [];
    for (let sample = 0; sample < 5; sample++) {
      const { stdout } = await run(
        'taskset',
        ['-c', String(core), process.execPath, '--no-warnings', PROBE, pathToFileURL(referenceFile).href],
        { env },
      );
      times.push(Number(stdout));
    }
    referenceMsByCore.push(median(times));
  }
  return { core: referenceMsByCore.indexOf(Math.min(...referenceMsByCore)), referenceMsByCore };
}

/**
 * P1: each function bundled exactly as the CDK stack bundles it (functionBuildOptions), then imported in fresh Node
 * processes, interleaved round by round with the empty handler and the reference bundle (TOOLCHAIN §5). The children
 * run without NODE_EXTRA_CA_CERTS (gotcha 14) and NODE_OPTIONS, and without the SDK's Node 20 support warning
 * (Lambda runs Node 22, where it is never printed).
 */
export async function coldStartBenchmark(options: {
  samples: number;
  functions?: string[];
  whatIf?: boolean;
}): Promise<ColdStartResult> {
  const functions = options.functions ?? readdirSync(new URL('../functions/', import.meta.url)).sort();
  const whatIfs =
    options.whatIf === false ? [] : WHAT_IF.filter((whatIf) => !whatIf.fn || functions.includes(whatIf.fn));
  const outdir = await mkdtemp(join(tmpdir(), 'wpcrm-p1-'));
  try {
    const entries = [
      ...functions.map((fn) => ({ name: fn, build: functionBuildOptions(fn, join(outdir, fn)) })),
      ...Object.entries(BASELINES).map(([name, entry]) => ({
        name,
        build: { ...bundleBuildOptions(entry, join(outdir, name.replace(/\W+/g, '-'))), alias: {} },
      })),
      ...whatIfs.map(({ name, entry, dropAlias = [] }) => {
        const buildOptions = bundleBuildOptions(entry, join(outdir, name.replace(/\W+/g, '-')));
        const alias = Object.fromEntries(
          Object.entries(buildOptions.alias ?? {}).filter(([from]) => !dropAlias.includes(from)),
        );
        return { name, build: { ...buildOptions, alias } };
      }),
    ];
    const built = await Promise.all(
      entries.map(async ({ name, build: buildOptions }) => {
        const result = await build(buildOptions);
        const file = buildOptions.outfile!;
        return { name, file, metafile: result.metafile! };
      }),
    );

    const env: NodeJS.ProcessEnv = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
    delete env.NODE_EXTRA_CA_CERTS;
    delete env.NODE_OPTIONS;
    const pinning = await pinnedCore(built.find((bundle) => bundle.name === 'reference')!.file, env);
    const probe = (file: string) => {
      const node = [process.execPath, '--no-warnings', PROBE, pathToFileURL(file).href];
      return pinning
        ? run('taskset', ['-c', String(pinning.core), ...node], { env })
        : run(node[0]!, node.slice(1), { env });
    };
    const samples = new Map(built.map((bundle) => [bundle.name, [] as number[]]));
    for (let round = 0; round < options.samples; round++) {
      // Rotate the order each round, so no bundle always runs right after the same neighbour.
      const offset = round % built.length;
      for (const bundle of [...built.slice(offset), ...built.slice(0, offset)]) {
        const { stdout } = await probe(bundle.file);
        samples.get(bundle.name)!.push(Number(stdout));
      }
    }

    const figures = built.map(
      (bundle): BundleFigures => ({
        name: bundle.name,
        bytes: statSync(bundle.file).size,
        mapBytes: statSync(`${bundle.file}.map`).size,
        importMs: median(samples.get(bundle.name)!),
        samples: samples.get(bundle.name)!,
        packages: packageBytes(bundle.metafile),
      }),
    );
    const byName = new Map(figures.map((figure) => [figure.name, figure]));
    return {
      functions: functions.map((fn) => byName.get(fn)!),
      whatIf: whatIfs.map(({ name }) => byName.get(name)!),
      baselines: Object.fromEntries(Object.keys(BASELINES).map((name) => [name, byName.get(name)!])) as Record<
        keyof typeof BASELINES,
        BundleFigures
      >,
      samplesPerBundle: options.samples,
      ...(pinning ? { pinning } : {}),
    };
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}

/** One P1 run and the machine's 1-minute load average right before and right after it. */
export interface ColdStartRun extends ColdStartResult {
  load: { before: number; after: number };
}

/** A bundle's import time over the empty handler, as a share of the reference's, in the same run. */
export function importRatio(run: ColdStartResult, bundle: BundleFigures): number {
  const empty = run.baselines.empty.importMs;
  return (bundle.importMs - empty) / (run.baselines.reference.importMs - empty);
}

/**
 * P1 `runs` times in a row (bundles built again each time, same bytes), each with its load average: the goal is
 * judged on each function's worst ratio over the runs, since the machine's cores are shared with other work.
 */
export async function coldStartRuns(options: {
  samples: number;
  runs: number;
  functions?: string[];
  log?: (line: string) => void;
}): Promise<ColdStartRun[]> {
  const runs: ColdStartRun[] = [];
  for (let index = 0; index < options.runs; index++) {
    const before = loadavg()[0]!;
    options.log?.(`P1 run ${index + 1} of ${options.runs} (load ${before.toFixed(2)})`);
    const result = await coldStartBenchmark({ samples: options.samples, functions: options.functions });
    runs.push({ ...result, load: { before, after: loadavg()[0]! } });
  }
  return runs;
}

/** Each function's highest ratio over the runs (the run it came from, 1-based), in the order of the first run. */
export function worstRatios(
  runs: readonly ColdStartRun[],
): { bundle: BundleFigures; ratios: number[]; worst: number }[] {
  return runs[0]!.functions.map((bundle) => {
    const ratios = runs.map((run) => importRatio(run, run.functions.find((other) => other.name === bundle.name)!));
    return { bundle, ratios, worst: Math.max(...ratios) };
  });
}

/** esbuild's metafile, summed per npm package (own code per top folder), as analyzeMetafile lists it per file. */
function packageBytes(metafile: Metafile): [string, number][] {
  const output = Object.values(metafile.outputs).find((out) => out.entryPoint);
  const totals = new Map<string, number>();
  for (const [file, input] of Object.entries(output?.inputs ?? {})) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1] ?? file.split('/').slice(0, 2).join('/');
    totals.set(pkg, (totals.get(pkg) ?? 0) + input.bytesInOutput);
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}
