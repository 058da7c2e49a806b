/**
 * CONTRACT §19, "generated clients in three popular generators need no cast": `npm run test:generators` (part of
 * `npm test`). From the repository root it
 * 1. installs this package's own dependencies when they are missing or stale (`npm ci --prefix clients/generator-check`);
 * 2. writes the document the service serves (test/support/write-openapi.ts) to generated/openapi.json;
 * 3. generates a client from it with openapi-typescript, orval (fetch) and @hey-api/openapi-ts (fetch), into
 *    generated/ (git-ignored), having written one walkthrough per generator from the same document
 *    (walkthroughs.ts, into generated/walkthroughs/): nothing there is written by hand;
 * 4. refuses a walkthrough that casts (`as`, `<T>x`, `JSON.parse`), names `any`, asserts non-null (`x!`) or silences
 *    the compiler (a ts-ignore, ts-expect-error or ts-nocheck comment), or does not call every operation of the
 *    document: a guard on walkthroughs.ts itself;
 * 5. type-checks the walkthroughs against the three clients with TypeScript 5.9, strict (tsconfig.json).
 * This package is not a workspace: the repository's TypeScript 7 has no compiler API, which the generators need.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Ts from 'typescript';
import { type Document, GENERATORS as GENERATOR_NAMES, type Generator, walkthroughs } from './walkthroughs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const GENERATED = join(HERE, 'generated');
const DOCUMENT = join(GENERATED, 'openapi.json');
const BIN = join(HERE, 'node_modules', '.bin');
const WALKTHROUGHS = join(GENERATED, 'walkthroughs');
/** tsc's lines shown: a schema change can break a field in every operation; the first ones name the cause. */
const MAX_TSC_LINES = 60;

interface Operation {
  operationId: string;
  method: string;
  path: string;
}

/** How each generator is run (in this directory), and the module its walkthrough calls the operations from. */
const GENERATORS: Record<Generator, { command: string[]; module: string | undefined }> = {
  'openapi-fetch': {
    command: [
      join(BIN, 'openapi-typescript'),
      './generated/openapi.json',
      '-o',
      './generated/openapi-typescript/schema.ts',
    ],
    module: undefined,
  },
  orval: { command: [join(BIN, 'orval'), '--config', './orval.config.cjs'], module: '../orval/client' },
  'hey-api': {
    command: [
      join(BIN, 'openapi-ts'),
      '-i',
      './generated/openapi.json',
      '-o',
      './generated/hey-api',
      '-c',
      '@hey-api/client-fetch',
    ],
    module: '../hey-api/sdk.gen',
  },
};

const failures: string[] = [];
const started = Date.now();
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/** The packages of package-lock.json that the installed tree lacks or has in another version (optional ones aside). */
function staleDependencies(): string[] {
  const hidden = join(HERE, 'node_modules', '.package-lock.json');
  if (!existsSync(hidden)) return ['(nothing installed)'];
  const wanted = JSON.parse(readFileSync(join(HERE, 'package-lock.json'), 'utf8')).packages as Record<
    string,
    { version?: string; optional?: boolean }
  >;
  const installed = JSON.parse(readFileSync(hidden, 'utf8')).packages as Record<string, { version?: string }>;
  return Object.entries(wanted)
    .filter(([name, entry]) => name !== '' && !entry.optional && installed[name]?.version !== entry.version)
    .map(([name]) => name);
}

function install(): void {
  const stale = staleDependencies();
  if (stale.length === 0) return;
  const since = Date.now();
  console.log(
    `generator-check: installing its dependencies (${stale.slice(0, 3).join(', ')}${stale.length > 3 ? ', …' : ''})`,
  );
  const npm = spawnSync('npm', ['ci', '--prefix', relative(ROOT, HERE), '--no-audit', '--no-fund'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (npm.status !== 0) throw new Error('npm ci --prefix clients/generator-check failed');
  console.log(`generator-check: installed in ${seconds(since)}`);
}

function run(command: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const [file = '', ...args] = command;
    const child = spawn(file, args, { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error) => resolve({ code: -1, output: `${output}${String(error)}` }));
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Whether all three generators wrote their client. */
async function generate(): Promise<boolean> {
  for (const name of ['openapi-typescript', 'orval', 'hey-api'])
    rmSync(join(GENERATED, name), { recursive: true, force: true });
  const generated = await Promise.all(
    GENERATOR_NAMES.map(async (generator) => {
      const since = Date.now();
      const { code, output } = await run(GENERATORS[generator].command, HERE);
      if (code === 0) console.log(`generator-check: ${generator} client generated in ${seconds(since)}`);
      else failures.push(`${generator}: the generator failed (exit ${code}):\n${output}`);
      return code === 0;
    }),
  );
  return generated.every(Boolean);
}

/** The walkthroughs of the document, written to generated/walkthroughs/; its operations. */
function writeWalkthroughs(document: Document): Operation[] {
  const since = Date.now();
  const written = walkthroughs(document);
  failures.push(...written.failures);
  rmSync(WALKTHROUGHS, { recursive: true, force: true });
  mkdirSync(WALKTHROUGHS, { recursive: true });
  for (const generator of GENERATOR_NAMES)
    writeFileSync(join(WALKTHROUGHS, `${generator}.ts`), written.sources[generator]);
  const lines = Object.values(written.sources).reduce((sum, text) => sum + text.split('\n').length, 0);
  console.log(`generator-check: walkthroughs written from the document (${lines} lines, ${seconds(since)})`);
  return written.operations.map(({ method, path, operation }) => ({
    operationId: operation.operationId,
    method: method.toUpperCase(),
    path,
  }));
}

/** What a walkthrough must not contain, and the operations it calls, from its syntax tree. */
function inspect(ts: typeof Ts, generator: Generator, operations: Operation[]): void {
  const file = join(WALKTHROUGHS, `${generator}.ts`);
  const where = relative(ROOT, file);
  if (!existsSync(file)) {
    failures.push(`${where} is missing`);
    return;
  }
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const line = (node: Ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const imported = new Set<string>();
  const called = new Set<string>();
  const byRoute = new Map(
    operations.map((operation) => [`${operation.method} ${operation.path}`, operation.operationId]),
  );
  for (const directive of ['@ts-ignore', '@ts-expect-error', '@ts-nocheck']) {
    if (text.includes(directive)) failures.push(`${where}: ${directive} silences the compiler`);
  }
  const visit = (node: Ts.Node): void => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      failures.push(`${where}:${line(node)}: a cast (${node.getText(source)})`);
    } else if (node.kind === ts.SyntaxKind.AnyKeyword) {
      failures.push(`${where}:${line(node)}: \`any\``);
    } else if (ts.isNonNullExpression(node)) {
      failures.push(`${where}:${line(node)}: a non-null assertion (${node.getText(source)})`);
    } else if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const bindings = node.importClause?.namedBindings;
      if (node.moduleSpecifier.text === GENERATORS[generator].module && bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) imported.add(element.name.text);
      }
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const [first] = node.arguments;
      if (ts.isPropertyAccessExpression(callee) && callee.getText(source) === 'JSON.parse') {
        failures.push(`${where}:${line(node)}: JSON.parse (an any, a cast in disguise)`);
      } else if (ts.isIdentifier(callee) && imported.has(callee.text)) {
        called.add(callee.text);
      } else if (
        generator === 'openapi-fetch' &&
        ts.isPropertyAccessExpression(callee) &&
        first &&
        ts.isStringLiteral(first)
      ) {
        const operationId = byRoute.get(`${callee.name.text} ${first.text}`);
        if (operationId) called.add(operationId);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const operation of operations) {
    if (called.has(operation.operationId)) continue;
    failures.push(
      `${where} does not call ${operation.operationId} (${operation.method} ${operation.path}): ` +
        'clients/generator-check/walkthroughs.ts did not write its walk',
    );
  }
}

async function typecheck(): Promise<void> {
  const since = Date.now();
  const { code, output } = await run([join(BIN, 'tsc'), '-p', 'tsconfig.json'], HERE);
  const errors = output.trimEnd().split('\n');
  const shown =
    errors.length > MAX_TSC_LINES
      ? [...errors.slice(0, MAX_TSC_LINES), `… and ${errors.length - MAX_TSC_LINES} more lines`]
      : errors;
  if (code === 0) console.log(`generator-check: walkthroughs type-check against the three clients (${seconds(since)})`);
  else
    failures.push(
      `the walkthroughs (${relative(ROOT, WALKTHROUGHS)}) do not type-check against the generated clients ` +
        `(strict TypeScript 5.9):\n${shown.join('\n')}`,
    );
}

install();
const write = spawnSync(process.execPath, ['--import', 'tsx', 'test/support/write-openapi.ts', DOCUMENT], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (write.status !== 0) throw new Error('test/support/write-openapi.ts failed');
const operations = writeWalkthroughs(JSON.parse(readFileSync(DOCUMENT, 'utf8')));
const generated = await generate();
const ts = createRequire(join(HERE, 'package.json'))('typescript') as typeof Ts;
for (const generator of GENERATOR_NAMES) inspect(ts, generator, operations);
if (generated) await typecheck();
if (failures.length > 0) {
  console.error(`generator-check failed (${seconds(started)}):\n\n${failures.join('\n\n')}`);
  process.exitCode = 1;
} else {
  console.log(
    `generator-check: ${operations.length} operations, each called and read with no cast through all three clients (${seconds(started)})`,
  );
}
