import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { biomeLint, projectConfig } from './biome.ts';

/**
 * No import cycles (issue 36): `npm run lint` runs Biome's noImportCycles over the whole project (package.json
 * `imports` aliases such as `#shared/*` resolved, dynamic imports followed). Type-only imports count too
 * (`ignoreTypes: false`): they vanish at run time, but a circle of types is still two modules a reader cannot
 * understand one without the other, and each such circle had a plain home for the shared piece. This test shows
 * that the rule, as the project configures it, fails on a cycle and passes once it is broken.
 */
const RULE = 'suspicious/noImportCycles';
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A throwaway project with the project's noImportCycles setting and these files. */
function fixture(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'wpcrm-cycles-'));
  dirs.push(dir);
  const setting = projectConfig().linter.rules.suspicious.noImportCycles;
  const config = { linter: { enabled: true, rules: { recommended: false, suspicious: { noImportCycles: setting } } } };
  const packageJson = { name: 'fixture', type: 'module', imports: { '#lib/*': './lib/*.ts' } };
  writeFileSync(join(dir, 'biome.json'), JSON.stringify(config));
  writeFileSync(join(dir, 'package.json'), JSON.stringify(packageJson));
  mkdirSync(join(dir, 'lib'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const cyclePaths = (dir: string) =>
  biomeLint(RULE, ['lib'], { cwd: dir })
    .map((diagnostic) => diagnostic.location.path)
    .sort();

describe('import cycles', () => {
  it('are an error in the project configuration, type-only imports included', () => {
    expect(projectConfig().linter.rules.suspicious.noImportCycles).toEqual({
      level: 'error',
      options: { ignoreTypes: false },
    });
  });

  it('fail the lint through an alias and a type-only import, and pass once the circle is broken', () => {
    const model =
      "import { LIMIT } from '#lib/lanes';\nexport interface Model { count: number }\nexport const max = LIMIT;\n";
    const lanes =
      "import type { Model } from './model.ts';\nexport const LIMIT = 2;\nexport const full = (model: Model) => model.count >= LIMIT;\n";
    expect(cyclePaths(fixture({ 'lib/model.ts': model, 'lib/lanes.ts': lanes }))).toEqual([
      'lib/lanes.ts',
      'lib/model.ts',
    ]);

    // The shared piece moved to where it belongs (the model), the imports point one way.
    const broken = {
      'lib/model.ts': 'export interface Model { count: number }\nexport const LIMIT = 2;\n',
      'lib/lanes.ts':
        "import { LIMIT, type Model } from '#lib/model';\nexport const full = (model: Model) => model.count >= LIMIT;\n",
    };
    expect(cyclePaths(fixture(broken))).toEqual([]);
  });

  it('fail the lint through a dynamic import', () => {
    const document = "export { serve } from './served.ts';\nexport const build = () => ({});\n";
    const served = "export const serve = async () => (await import('#lib/document')).build();\n";
    expect(cyclePaths(fixture({ 'lib/document.ts': document, 'lib/served.ts': served }))).toHaveLength(2);
  });
});
