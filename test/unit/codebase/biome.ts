import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const BIOME = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');

export interface Diagnostic {
  category: string;
  message: string;
  location: { path: string; start: { line: number; column: number }; end: { line: number; column: number } };
}

/**
 * `biome lint --only=<rule>` over `paths`, run in `cwd` with the configuration found from there (or in
 * `configDir`): its diagnostics, from the JSON reporter (its shape is pinned with Biome's exact version).
 */
export function biomeLint(
  rule: string,
  paths: string[],
  { cwd = ROOT, configDir }: { cwd?: string; configDir?: string } = {},
): Diagnostic[] {
  const args = ['lint', `--only=${rule}`, '--reporter=json', '--max-diagnostics=none', '--colors=off'];
  if (configDir) args.push(`--config-path=${configDir}`);
  const run = spawnSync(process.execPath, [BIOME, ...args, ...paths], { cwd, encoding: 'utf8' });
  if (run.status !== 0 && run.status !== 1) throw new Error(`biome failed (${run.status}): ${run.stderr}`);
  const report = JSON.parse(run.stdout) as { diagnostics: Diagnostic[] };
  return report.diagnostics.filter((diagnostic) => diagnostic.category === `lint/${rule}`);
}

/** The project's biome.json. */
// biome-ignore lint/suspicious/noExplicitAny: the configuration is untyped JSON, read field by field
export const projectConfig = (): Record<string, any> => JSON.parse(readFileSync(`${ROOT}biome.json`, 'utf8'));
