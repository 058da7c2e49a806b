import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { type BuildOptions, build } from 'esbuild';
import { bundleBuildOptions } from '#infra/aws/constructs/function-bundle';
import { BASELINES } from './cold-start.ts';
import { median } from './stats.ts';

/**
 * An interim A/B probe for P1 on a shared, noisy machine (not part of `npm run bench`; the goal is judged by
 * `npm run bench -- --p1` on a quiet one). A few functions bundled two ways, A and B: the stack's options
 * (bundleBuildOptions) with `--a-…`/`--b-…` laid over them (aliases added or dropped, esbuild options), imported in
 * fresh processes round-robin beside the empty handler and the reference, the order rotated each round as in
 * bench/cold-start.ts, so load hits A and B alike. Each import is timed as bench/import-probe.mjs does (wall), and
 * its process's CPU time (user + system) is taken over the same import: on a loaded machine the wall time mostly
 * measures the wait for a core, the CPU time much less so. Prints each bundle's ratio to the reference's overhead
 * over the empty handler, from the medians and from the minimums of the wall times, and from the medians of the CPU
 * times.
 *
 * `node --import tsx bench/p1-ab.ts --samples=31 --fns=report-worker,group-worker --a-drop-alias=@smithy/core/event-streams`
 * (other flags: `--b-drop-alias=a,b`, `--a-alias=json`, `--b-alias=json`, `--a-options=json`, `--b-options=json`)
 */
const run = promisify(execFile);
/** bench/import-probe.mjs's measure, and the process's CPU time over the same import. */
const PROBE = `const wall = performance.now(); const cpu = process.cpuUsage();
await import(process.argv[1]);
const used = process.cpuUsage(cpu);
process.stdout.write(\`\${performance.now() - wall} \${(used.user + used.system) / 1000}\`);`;

const option = (name: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? undefined;
const samples = Number(option('samples') ?? 21);
const fns = (option('fns') ?? 'report-worker,group-worker').split(',');
const aAlias = JSON.parse(option('a-alias') ?? '{}') as Record<string, string>;
const bAlias = JSON.parse(option('b-alias') ?? '{}') as Record<string, string>;
const aOptions = JSON.parse(option('a-options') ?? '{}') as BuildOptions;
const bOptions = JSON.parse(option('b-options') ?? '{}') as BuildOptions;
/** Aliases of the stack's options left out of A (e.g. `@smithy/core/event-streams`, to measure the stand-in's gain). */
const aDrop = (option('a-drop-alias') ?? '').split(',').filter(Boolean);
const bDrop = (option('b-drop-alias') ?? '').split(',').filter(Boolean);

const outdir = await mkdtemp(join(tmpdir(), 'wpcrm-p1-ab-'));
try {
  const variant = (entry: string, dir: string, alias: Record<string, string>, extra: BuildOptions, drop: string[]) => {
    const base = bundleBuildOptions(entry, join(outdir, dir));
    const merged: Record<string, string> = { ...base.alias, ...alias };
    for (const name of drop) delete merged[name];
    return { ...base, ...extra, alias: merged };
  };
  const entries = [
    ...fns.flatMap((fn) => [
      { name: `${fn} A`, build: variant(`functions/${fn}/handler.ts`, `${fn}-A`, aAlias, aOptions, aDrop) },
      { name: `${fn} B`, build: variant(`functions/${fn}/handler.ts`, `${fn}-B`, bAlias, bOptions, bDrop) },
    ]),
    ...Object.entries(BASELINES)
      .filter(([name]) => name !== 'reference, clients on first use')
      .map(([name, entry]) => ({
        name,
        build: { ...bundleBuildOptions(entry, join(outdir, name.replace(/\W+/g, '-'))), alias: {} },
      })),
  ];
  await Promise.all(entries.map((entry) => build(entry.build)));

  const env: NodeJS.ProcessEnv = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.NODE_OPTIONS;
  const times = new Map(entries.map((entry) => [entry.name, [] as number[]]));
  const cpuTimes = new Map(entries.map((entry) => [entry.name, [] as number[]]));
  const loadBefore = loadavg()[0]!;
  for (let round = 0; round < samples; round++) {
    const offset = round % entries.length;
    for (const entry of [...entries.slice(offset), ...entries.slice(0, offset)]) {
      const { stdout } = await run(
        process.execPath,
        ['--no-warnings', '--input-type=module', '-e', PROBE, pathToFileURL(entry.build.outfile!).href],
        { env },
      );
      const [wall, cpu] = stdout.split(' ').map(Number);
      times.get(entry.name)!.push(wall!);
      cpuTimes.get(entry.name)!.push(cpu!);
    }
  }
  const loadAfter = loadavg()[0]!;
  const stat = (name: string, of = times) => {
    const values = of.get(name)!;
    return { med: median(values), min: Math.min(...values) };
  };
  const empty = stat('empty');
  const reference = stat('reference');
  const emptyCpu = stat('empty', cpuTimes);
  const referenceCpu = stat('reference', cpuTimes);
  console.log(`load ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}, ${samples} samples per bundle`);
  console.log(
    `empty ${empty.med.toFixed(1)} (min ${empty.min.toFixed(1)}) ms, reference ${reference.med.toFixed(1)} (min ${reference.min.toFixed(1)}) ms`,
  );
  for (const entry of entries.slice(0, fns.length * 2)) {
    const s = stat(entry.name);
    const ratioMed = (s.med - empty.med) / (reference.med - empty.med);
    const ratioMin = (s.min - empty.min) / (reference.min - empty.min);
    const c = stat(entry.name, cpuTimes);
    const cpuRatio = (c.med - emptyCpu.med) / (referenceCpu.med - emptyCpu.med);
    const kb = statSync(entry.build.outfile!).size / 1024;
    console.log(
      `${entry.name.padEnd(34)} ${kb.toFixed(0).padStart(4)} KB  median ${s.med.toFixed(1)} ms  min ${s.min.toFixed(1)} ms  ratio(med) ${ratioMed.toFixed(3)}  ratio(min) ${ratioMin.toFixed(3)}  cpu median ${c.med.toFixed(1)} ms ratio(cpu med) ${cpuRatio.toFixed(3)}`,
    );
  }
} finally {
  await rm(outdir, { recursive: true, force: true });
}
