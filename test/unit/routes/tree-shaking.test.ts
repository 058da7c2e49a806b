import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { functionBuildOptions } from '#infra/aws/constructs/function-bundle';
import { ROUTES } from '#shared/routes/index';

/**
 * A function's bundle keeps only its own route and the schemas that route uses (shared/routes/route.ts,
 * shared/schemas/common.ts): esbuild drops the rest only while every route and schema is built without side effects,
 * which a spread or a bare valibot call at the top level of those modules silently undoes (bench/RESULTS.md, P1).
 * One function per route module, and get-openapi, which bundles every route, as the whole.
 */
const FUNCTIONS = ['get-group', 'delete-webhook', 'list-reports', 'get-report', 'issue-token'] as const;

interface Bundle {
  text: string;
  /** Bytes each shared/schemas/, shared/routes/ or record-kinds module adds to the output. */
  bytes: Map<string, number>;
}

async function bundle(fn: string): Promise<Bundle> {
  const result = await build({ ...functionBuildOptions(fn, `/tmp/wpcrm-tree-shaking/${fn}`), write: false });
  const output = result.outputFiles!.find((file) => file.path.endsWith('.mjs'))!;
  const inputs = Object.values((result.metafile as Metafile).outputs).find((out) => out.entryPoint)!.inputs;
  const bytes = new Map(
    Object.entries(inputs)
      .filter(([file]) => /^shared\/(schemas|routes)\/|^shared\/domain\/reports\/records\.ts$/.test(file))
      .map(([file, input]) => [file, input.bytesInOutput]),
  );
  return { text: output.text, bytes };
}

describe('route and schema tree-shaking in function bundles', () => {
  const bundles = new Map<string, Bundle>();

  beforeAll(async () => {
    for (const fn of [...FUNCTIONS, 'get-openapi']) bundles.set(fn, await bundle(fn));
  }, 120_000);

  it.each(FUNCTIONS)('%s bundles its own route and no other', (fn) => {
    const operationIds = ROUTES.map((route) => route.operationId).filter((id) =>
      bundles.get(fn)!.text.includes(`operationId:"${id}"`),
    );

    expect(operationIds).toEqual(ROUTES.filter((route) => route.fn === fn).map((route) => route.operationId));
  });

  it.each(FUNCTIONS)('%s keeps under half of its route module', (fn) => {
    const whole = bundles.get('get-openapi')!.bytes;
    const kept = [...bundles.get(fn)!.bytes].filter(
      ([file, bytes]) => file.startsWith('shared/routes/') && bytes > (whole.get(file) ?? 0) / 2,
    );

    expect(kept).toEqual([]);
  });

  // The schemas of the answers are only the OpenAPI document's (shared/schemas/responses.ts).
  it.each([
    ['get-group', 'shared/schemas/groups.ts'],
    ['delete-webhook', 'shared/schemas/webhooks.ts'],
    ['get-report', 'shared/schemas/reports.ts'],
  ])('%s keeps under a quarter of %s', (fn, file) => {
    const whole = bundles.get('get-openapi')!.bytes.get(file)!;

    expect(bundles.get(fn)!.bytes.get(file) ?? 0).toBeLessThan(whole / 4);
  });

  it('list-reports takes the report types without the import schemas of the record kinds', () => {
    expect(bundles.get('list-reports')!.bytes.get('shared/domain/reports/records.ts') ?? 0).toBeLessThan(1024);
  });
});
