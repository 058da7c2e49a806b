/**
 * Prints a walkthrough's code for operations of openapi.json (CONTRACT §19), as a start for a reviewer-readable
 * walkthrough: `node --import tsx clients/generator-check/scaffold.ts <openapi-fetch|orval|hey-api> [operationId…]`
 * (from the repository root, after `npm run test:generators` wrote generated/openapi.json). Without operation ids it
 * prints a whole file; with them, only their functions, to paste into walkthroughs/<generator>.ts when the document
 * gains operations. Each function calls the operation with the document's example parameters and body, hands every
 * error to `readError` and reads every field of the success body with `read`, which does not compile for a value
 * typed `any` or `unknown`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  const?: unknown;
};
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  example?: unknown;
  schema: Schema & { default?: unknown; enum?: unknown[] };
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
export type Generator = 'openapi-fetch' | 'orval' | 'hey-api';

const DOCUMENT = fileURLToPath(new URL('generated/openapi.json', import.meta.url));
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const MAX_DEPTH = 4;

const member = (expression: string, name: string, optional: boolean) =>
  IDENTIFIER.test(name)
    ? `${expression}${optional ? '?.' : '.'}${name}`
    : `${expression}${optional ? '?.' : ''}['${name}']`;

/** The schema without its `null` alternative, and whether it had one. */
function nonNull(schema: Schema): { schema: Schema; nullable: boolean } {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const rest = alternatives.filter((alternative) => alternative.type !== 'null');
    if (rest.length === 1 && rest.length < alternatives.length) return { schema: rest[0] ?? {}, nullable: true };
  }
  if (Array.isArray(schema.type) && schema.type.includes('null')) {
    const type = schema.type.filter((name) => name !== 'null');
    return { schema: { ...schema, type: type.length === 1 ? type[0] : type }, nullable: true };
  }
  return { schema, nullable: false };
}

const singular = (name: string) =>
  name.endsWith('ies') ? `${name.slice(0, -3)}y` : name.endsWith('s') ? name.slice(0, -1) : `${name}Item`;

/** Statements that read every field of `expression` (typed by `schema`), `optional` when it may be absent. */
function reads(expression: string, schema: Schema, optional: boolean, depth: number, names: Set<string>): string[] {
  const { schema: shape, nullable } = nonNull(schema);
  const absent = optional || nullable;
  const variants = shape.oneOf ?? shape.anyOf;
  if (variants && depth < MAX_DEPTH) {
    const discriminator = Object.keys(variants[0]?.properties ?? {}).find((name) =>
      variants.every((variant) => variant.properties?.[name]?.const !== undefined),
    );
    const common = Object.keys(variants[0]?.properties ?? {}).filter((name) =>
      variants.every((variant) => variant.properties?.[name]),
    );
    const lines: string[] = [];
    for (const name of common) {
      if (name === discriminator) continue;
      const required = variants.every((variant) => variant.required?.includes(name));
      const child = variants[0]?.properties?.[name] ?? {};
      if (variants.some((variant) => JSON.stringify(variant.properties?.[name]) !== JSON.stringify(child))) {
        lines.push(`read(${member(expression, name, absent)});`);
      } else lines.push(...reads(member(expression, name, absent), child, absent || !required, depth + 1, names));
    }
    if (discriminator && !absent) {
      // Fields whose shape differs by variant are read once the discriminator has narrowed the union.
      lines.push(`switch (${member(expression, discriminator, false)}) {`);
      for (const variant of variants) {
        lines.push(`  case ${JSON.stringify(variant.properties?.[discriminator]?.const)}:`);
        for (const [name, child] of Object.entries(variant.properties ?? {})) {
          if (name === discriminator) continue;
          if (
            common.includes(name) &&
            variants.every((other) => JSON.stringify(other.properties?.[name]) === JSON.stringify(child))
          )
            continue;
          const inner = reads(
            member(expression, name, false),
            child,
            !variant.required?.includes(name),
            depth + 1,
            names,
          );
          lines.push(...inner.map((line) => `    ${line}`));
        }
        lines.push('    break;');
      }
      lines.push('}');
    }
    return lines.length > 0 ? lines : [`read(${expression});`];
  }
  const type = Array.isArray(shape.type) ? undefined : shape.type;
  if (type === 'object' && shape.properties && depth < MAX_DEPTH) {
    const lines: string[] = [];
    for (const [name, child] of Object.entries(shape.properties)) {
      lines.push(
        ...reads(member(expression, name, absent), child, absent || !shape.required?.includes(name), depth + 1, names),
      );
    }
    return lines.length > 0 ? lines : [`read(${expression});`];
  }
  if (type === 'array' && shape.items && depth < MAX_DEPTH) {
    const items = nonNull(shape.items).schema;
    const isObject = items.properties || items.oneOf || items.anyOf;
    if (!isObject) return [`read(${expression});`];
    let name = singular(expression.replace(/^.*[.?[\]']/, '').replace(/\W/g, '') || 'item');
    while (names.has(name)) name = `${name}Item`;
    names.add(name);
    const inner = reads(name, shape.items, false, depth + 1, names);
    names.delete(name);
    return [
      `for (const ${name} of ${expression}${absent ? ' ?? []' : ''}) {`,
      ...inner.map((line) => `  ${line}`),
      '}',
    ];
  }
  return [`read(${expression});`];
}

/** A JSON value as code (`biome format` gives it the repository's quotes). */
const literal = (value: unknown) => JSON.stringify(value);

function parameterValue(parameter: Parameter) {
  if (parameter.example !== undefined) return literal(parameter.example);
  if (parameter.name === 'limit') return '20';
  if (parameter.schema.enum) return literal(parameter.schema.enum[0]);
  if (parameter.name === 'hub.mode') return "'subscribe'";
  if (parameter.name === 'hub.challenge') return "'1158201444'";
  if (parameter.name === 'Idempotency-Key') return "'6f1c2d3e-create-1'";
  if (parameter.name === 'X-Hub-Signature-256') return "'sha256=<hex HMAC of the raw body>'";
  return `'<${parameter.name}>'`;
}

/** The parameters a walkthrough sends: every path parameter, `limit` and every required query or header. */
const sent = (operation: Operation, where: Parameter['in']) =>
  (operation.parameters ?? []).filter(
    (parameter) =>
      parameter.in === where &&
      (where === 'path' || parameter.required || parameter.name === 'limit' || parameter.name.startsWith('hub.')),
  );

const object = (parameters: Parameter[]) =>
  `{ ${parameters.map((parameter) => `${IDENTIFIER.test(parameter.name) ? parameter.name : `'${parameter.name}'`}: ${parameterValue(parameter)}`).join(', ')} }`;

function call(generator: Generator, method: string, path: string, operation: Operation): string {
  const body = operation.requestBody?.content['application/json']?.example;
  const pathParams = sent(operation, 'path');
  const query = sent(operation, 'query');
  const headers = sent(operation, 'header');
  const text = Object.values(operation.responses).some((response) =>
    Object.keys(response.content ?? {}).some((type) => type.startsWith('text/')),
  );
  if (generator === 'orval') {
    const args = [
      ...pathParams.map(parameterValue),
      ...(body !== undefined ? [literal(body)] : []),
      // orval takes the query as one positional argument before the RequestInit: `{}` when none is sent.
      ...(query.length > 0
        ? [object(query)]
        : (operation.parameters ?? []).some((p) => p.in === 'query')
          ? ['{}']
          : []),
    ];
    const init = headers.length > 0 ? `{ headers: { ...auth.headers, ...${object(headers)} } }` : 'auth';
    return `await ${operation.operationId}(${[...args, init].join(', ')})`;
  }
  const options = [
    ...(generator === 'hey-api' ? ['client'] : []),
    ...(generator === 'openapi-fetch'
      ? pathParams.length + query.length + headers.length > 0
        ? [
            `params: { ${[
              pathParams.length > 0 ? `path: ${object(pathParams)}` : '',
              query.length > 0 ? `query: ${object(query)}` : '',
              headers.length > 0 ? `header: ${object(headers)}` : '',
            ]
              .filter(Boolean)
              .join(', ')} }`,
          ]
        : []
      : [
          ...(pathParams.length > 0 ? [`path: ${object(pathParams)}`] : []),
          ...(query.length > 0 ? [`query: ${object(query)}`] : []),
          ...(headers.length > 0 ? [`headers: ${object(headers)}`] : []),
        ]),
    ...(body !== undefined ? [`body: ${literal(body)}`] : []),
    ...(text ? [`parseAs: 'text'`] : []),
  ];
  const argument = options.length > 0 ? `{ ${options.join(', ')} }` : '';
  if (generator === 'openapi-fetch') {
    return `await client.${method.toUpperCase()}('${path}'${argument ? `, ${argument}` : ''})`;
  }
  return `await ${operation.operationId}(${argument})`;
}

const capitalised = (name: string) => `${name[0]?.toUpperCase()}${name.slice(1)}`;

function walk(generator: Generator, method: string, path: string, operation: Operation): string {
  const success = Object.entries(operation.responses).filter(([status]) => Number(status) < 400);
  const lines: string[] = [];
  const names = new Set(['data', 'error', 'response', 'client', 'auth']);
  const body = (status: string, expression: string) => {
    const content = Object.entries(operation.responses[status]?.content ?? {})[0];
    return content
      ? reads(expression, content[1].schema, false, 0, names)
      : [`read(${expression.replace(/\.data$/, '')}.status);`];
  };
  if (generator === 'orval') {
    lines.push(`const response = ${call(generator, method, path, operation)};`);
    const [first, ...others] = success;
    lines.push(
      `if (response.status === ${first?.[0]}) {`,
      ...body(first?.[0] ?? '', 'response.data').map((line) => `  ${line}`),
    );
    for (const [status] of others) {
      lines.push(
        `} else if (response.status === ${status}) {`,
        ...body(status, 'response.data').map((line) => `  ${line}`),
      );
    }
    lines.push('} else readError(response.data);');
  } else {
    const [first, ...others] = success;
    const fields = [
      first?.[1].content ? 'data' : '',
      'error',
      others.length > 0 || !first?.[1].content ? 'response' : '',
    ]
      .filter(Boolean)
      .join(', ');
    lines.push(`const { ${fields} } = ${call(generator, method, path, operation)};`);
    lines.push('if (error) return readError(error);');
    if (others.length === 0) {
      lines.push(...(first?.[1].content ? body(first[0], 'data') : ['read(response.status);']));
    } else {
      lines.push('read(response.status);');
      for (const [status, answer] of success) {
        if (answer.content)
          lines.push(`if (response.status === ${status}) {`, ...body(status, 'data').map((l) => `  ${l}`), '}');
      }
    }
  }
  return [
    `/** ${method.toUpperCase()} ${path} */`,
    `export async function walk${capitalised(operation.operationId)}(): Promise<void> {`,
    ...lines.map((line) => `  ${line}`),
    '}',
  ].join('\n');
}

export function operations(document: { paths: Record<string, Record<string, Operation>> }) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method, path, operation })),
  );
}

const READ_ERROR = `/** Reads a problem document, or API Gateway's own \`{"message"}\` (413, 429, 500 and 503 on AWS). */
function readError(error: Problem | GatewayError): void {
  if ('message' in error) {
    read(error.message);
    return;
  }
  read(error.type);
  read(error.title);
  read(error.status);
  read(error.detail);
  read(error.code);
  read(error.instance);
  for (const entry of error.errors ?? []) {
    read(entry.pointer);
    read(entry.message);
  }
}`;

const ABOUT: Record<Generator, string> = {
  'openapi-fetch': 'openapi-typescript (types) and openapi-fetch (calls)',
  orval: "orval's fetch client",
  'hey-api': "@hey-api/openapi-ts's fetch client",
};

function preamble(generator: Generator, operationIds: string[]): string {
  const imports: Record<Generator, string> = {
    'openapi-fetch': [
      "import createClient from 'openapi-fetch';",
      "import type { components, paths } from '../generated/openapi-typescript/schema';",
      "import { read } from './read';",
      '',
      "type Problem = components['schemas']['Problem'];",
      "type GatewayError = components['schemas']['GatewayError'];",
      '',
      "const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:3000', headers: { authorization: 'Bearer <accessToken>' } });",
    ].join('\n'),
    orval: [
      `import { type GatewayError, type Problem, ${operationIds.join(', ')} } from '../generated/orval/client';`,
      "import { read } from './read';",
      '',
      "const auth = { headers: { authorization: 'Bearer <accessToken>' } };",
    ].join('\n'),
    'hey-api': [
      "import { createClient, createConfig } from '../generated/hey-api/client';",
      `import { ${operationIds.join(', ')} } from '../generated/hey-api/sdk.gen';`,
      "import type { GatewayError, Problem } from '../generated/hey-api/types.gen';",
      "import { read } from './read';",
      '',
      "const client = createClient(createConfig({ baseUrl: 'http://127.0.0.1:3000', auth: () => '<accessToken>' }));",
    ].join('\n'),
  };
  return `/**
 * CONTRACT §19 with ${ABOUT[generator]}: every operation of openapi.json called through the client generated from the
 * served document, every field of every success body and every problem document read, with no cast.
 * \`npm run test:generators\` generates the client and type-checks this file (strict TypeScript 5.9); it is never run.
 */
${imports[generator]}

${READ_ERROR}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [generator, ...only] = process.argv.slice(2) as [Generator, ...string[]];
  const document = JSON.parse(readFileSync(DOCUMENT, 'utf8'));
  const chosen = operations(document).filter(
    ({ operation }) => only.length === 0 || only.includes(operation.operationId),
  );
  const functions = chosen.map(({ method, path, operation }) => walk(generator, method, path, operation));
  const ids = chosen.map(({ operation }) => operation.operationId);
  console.log([...(only.length === 0 ? [preamble(generator, ids)] : []), ...functions].join('\n\n'));
}
