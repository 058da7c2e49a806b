import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { functionBuildOptions } from '#infra/aws/constructs/function-bundle';

/**
 * Checks that the benchmarks bundle what `cdk synth` deploys: every `functions/<fn>` built with
 * functionBuildOptions must be byte-identical (index.mjs) to one of the synth's assets.
 * Usage: npx cdk synth -q --no-validation -o /tmp/cdkout && node --import tsx bench/synth-check.ts /tmp/cdkout
 */
const cdkOut = process.argv[2];
if (!cdkOut) throw new Error('usage: bench/synth-check.ts <cdk.out directory>');
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const assets = new Map<string, string>();
for (const dir of readdirSync(cdkOut).filter((name) => name.startsWith('asset.'))) {
  const file = join(cdkOut, dir, 'index.mjs');
  if (existsSync(file)) assets.set(sha(readFileSync(file)), dir);
}
const functions = readdirSync(new URL('../functions/', import.meta.url));
let mismatches = 0;
for (const fn of functions) {
  const result = await build({ ...functionBuildOptions(fn, `/tmp/wpcrm-synth-check/${fn}`), write: false });
  const bundle = result.outputFiles!.find((file) => file.path.endsWith('index.mjs'))!;
  const asset = assets.get(sha(bundle.contents));
  if (!asset) mismatches += 1;
  console.log(`${fn.padEnd(26)} ${String(bundle.contents.length).padStart(7)} B  ${asset ?? 'NO IDENTICAL ASSET'}`);
}
console.log(`${functions.length - mismatches}/${functions.length} bundles identical to a synth asset`);
process.exitCode = mismatches === 0 ? 0 : 1;
