import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { biomeLint, ROOT } from './biome.ts';

/**
 * Functions a reader holds in mind (issue 36): none in infra/ or shared/ is longer than 80 lines, counted from the
 * line it starts on to the line it ends on (signature, comments and blank lines included, as a reader sees it).
 * Biome's parser finds the functions (noExcessiveLinesPerFunction at one line reports every function with its
 * span); the rule's own count leaves out closing-brace lines, so the span is measured here instead. (A function whose
 * body is one multi-line string has no line of its own to Biome's count and is not seen: such a body is text.) Only
 * the data tables below are excepted, by name.
 */
const MAX_LINES = 80;
const SCOPE = ['infra', 'shared'];

/** Data tables built lazily by one function (`schema(() => lazily({ … }))`): one entry per kind, read as a table. */
const DATA_TABLES: Record<string, string[]> = {
  'shared/schemas/events.ts': ['EVENT_BODIES'],
  'shared/schemas/reports.ts': ['REPORT_FILTERS'],
  'shared/domain/reports/records.ts': ['RECORD_KINDS'],
};

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Span {
  at: string;
  lines: number;
}

/** Every function of `paths` (below `cwd`) longer than `max` lines, longest first. */
function longFunctions(paths: string[], cwd: string, max: number): Span[] {
  const configDir = mkdtempSync(join(tmpdir(), 'wpcrm-lengths-'));
  dirs.push(configDir);
  const rule = { level: 'error', options: { maxLines: 1 } };
  const config = {
    linter: { enabled: true, rules: { recommended: false, complexity: { noExcessiveLinesPerFunction: rule } } },
  };
  writeFileSync(join(configDir, 'biome.json'), JSON.stringify(config));
  return biomeLint('complexity/noExcessiveLinesPerFunction', paths, { cwd, configDir })
    .map(({ location: { path, start, end } }) => ({ at: `${path}:${start.line}`, lines: end.line - start.line + 1 }))
    .filter((span) => span.lines > max)
    .sort((a, b) => b.lines - a.lines);
}

function isDataTable(at: string): boolean {
  const [path, line] = at.split(':') as [string, string];
  const names = DATA_TABLES[path] ?? [];
  const source = readFileSync(join(ROOT, path), 'utf8').split('\n')[Number(line) - 1] ?? '';
  return names.some((name) => source.startsWith(`export const ${name} = `));
}

describe('function length', () => {
  it(`no function in ${SCOPE.join('/ and ')}/ is longer than ${MAX_LINES} lines`, () => {
    const long = longFunctions(SCOPE, ROOT, MAX_LINES).filter(({ at }) => !isDataTable(at));
    expect(long).toEqual([]);
  });

  it('measures from the first line to the last, and finds methods, constructors and arrows', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wpcrm-lengths-fixture-'));
    dirs.push(dir);
    const body = (lines: number) => Array.from({ length: lines }, (_, i) => `    const v${i} = ${i};`).join('\n');
    const source = [
      `export function fits() {\n${body(78)}\n}`, // 80 lines
      `export class Stack {\n  constructor() {\n${body(79)}\n  }\n}`, // the constructor: 81 lines
      `export const arrow = () => {\n${body(79)}\n};`, // after the class: 81 lines
    ].join('\n');
    writeFileSync(join(dir, 'code.ts'), `${source}\n`);
    expect(longFunctions(['code.ts'], dir, MAX_LINES)).toEqual([
      { at: 'code.ts:82', lines: 81 },
      { at: 'code.ts:164', lines: 81 },
    ]);
  });
});
