/**
 * Writes the walkthroughs of CONTRACT §19 from the served document, one per generator, each time
 * `npm run test:generators` runs (check.ts puts them in generated/walkthroughs/, git-ignored): a new operation, status
 * or field is walked without a line written by hand. For every operation a walkthrough
 * - calls it through the generated client with the document's example parameters and body (every parameter is sent);
 * - reads every field of its success body from what the call returns, and every field of every declared response,
 *   status by status and media type by media type, in the generator's own types (openapi-fetch and hey-api return
 *   the error statuses as one union, so those are read from the types they generate for each status; orval returns
 *   a union narrowed by `status`, read case by case, with nothing left over);
 * - reads every field of its request body in the generator's types, which proves that a discriminated request body
 *   (a report's `filters` by `reportType`) narrows.
 * Every field goes through read.ts, which refuses `any`, `unknown` and `never` and checks that the generator lets
 * the field be absent or `null` exactly when the document does; a union with a discriminator is read in a `switch`
 * that narrows it, then checked exhaustive. The only expectations the document cannot state are CONTRACT_RULES below.
 */

export type Generator = 'openapi-fetch' | 'orval' | 'hey-api';
export const GENERATORS: Generator[] = ['openapi-fetch', 'orval', 'hey-api'];

export type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  const?: unknown;
  enum?: unknown[];
  default?: unknown;
  example?: unknown;
  minimum?: number;
};
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  example?: unknown;
  schema?: Schema;
}
interface Response {
  content?: Record<string, { schema?: Schema }>;
}
export interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema; example?: unknown }> };
  responses: Record<string, Response>;
}
export interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}
type Presence = 'required' | 'optional' | 'defaulted';
/** Where a read is written: what it reads (for messages), whether a request body, the names loop variables avoid. */
interface Scope {
  where: string;
  request: boolean;
  names: Set<string>;
}
export interface Walked {
  method: string;
  path: string;
  operation: Operation;
}

/**
 * CONTRACT §19's expectations that the document cannot state about itself. Without them a document that lost a
 * response's schema, or a union's discriminator, would give a walkthrough that reads less and still passes.
 */
const CONTRACT_RULES: {
  errorBodies: Record<string, string>;
  mayHaveNoBody: (status: number) => boolean;
  discriminators: Record<string, string>;
} = {
  /** "no content-less error status: a generated client's error type must stay a problem document" (or API Gateway's own). */
  errorBodies: { 'application/problem+json': 'Problem', 'application/json': 'GatewayError' },
  /** "Every declared response has content", but for the statuses that have none by definition (no body, a redirect). */
  mayHaveNoBody: (status) => status === 204 || (status >= 300 && status < 400),
  /** "A report's `filters` … is discriminated by `reportType`, so a generated client narrows it." */
  discriminators: { filters: 'reportType' },
};

/** Past this depth a value is read whole; only a schema that refers to itself gets that deep. */
const MAX_DEPTH = 12;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const REF = '#/components/schemas/';

const capitalised = (name: string) => `${name[0]?.toUpperCase()}${name.slice(1)}`;
const member = (expression: string, name: string) =>
  IDENTIFIER.test(name) ? `${expression}.${name}` : `${expression}['${name}']`;
const key = (name: string) => (IDENTIFIER.test(name) ? name : `'${name}'`);
const indent = (lines: string[], by = '  ') => lines.map((line) => `${by}${line}`);
/** read.ts's reader for a field that may be absent (`presence`) or `null`. */
const reader = (presence: Presence, nullable: boolean) =>
  `read${presence === 'required' ? '' : capitalised(presence)}${nullable ? 'Nullable' : ''}`;
/** A schema that admits any JSON value. */
const untyped = (schema: Schema) =>
  !schema.type &&
  !schema.$ref &&
  !schema.enum &&
  schema.const === undefined &&
  !schema.anyOf &&
  !schema.oneOf &&
  !schema.properties &&
  !schema.items;
const singular = (name: string) =>
  name.endsWith('ies') ? `${name.slice(0, -3)}y` : name.endsWith('s') ? name.slice(0, -1) : `${name}Item`;

/** Writes the walkthroughs; what the document breaks of CONTRACT_RULES, or cannot be walked, lands in `failures`. */
class Writer {
  readonly failures: string[] = [];
  readonly operations: Walked[];

  constructor(readonly document: Document) {
    this.operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ method, path, operation })),
    );
  }

  /** The schema a `$ref` points at (through any chain of them). */
  resolve(schema: Schema | undefined, seen: string[] = []): Schema {
    if (!schema?.$ref) return schema ?? {};
    if (seen.includes(schema.$ref)) return {};
    const name = schema.$ref.startsWith(REF) ? schema.$ref.slice(REF.length) : undefined;
    const target = name ? this.document.components?.schemas?.[name] : undefined;
    if (!target) this.failures.push(`the document refers to ${schema.$ref}, which it does not declare`);
    return this.resolve(target, [...seen, schema.$ref]);
  }

  /** A schema of components.schemas, by name. */
  componentSchema(name: string): Schema {
    return this.resolve({ $ref: `${REF}${name}` });
  }

  /** Whether the schema lets the value be `null`, and the schema of its other values. */
  nullable(raw: Schema): { nullable: boolean; schema: Schema } {
    const schema = this.resolve(raw);
    const isNull = (alternative: Schema) => {
      const resolved = this.resolve(alternative);
      return resolved.type === 'null' || (resolved.const === null && resolved.type === undefined);
    };
    const alternatives = schema.anyOf ?? schema.oneOf;
    if (alternatives?.some(isNull)) {
      const rest = alternatives.filter((alternative) => !isNull(alternative));
      return {
        nullable: true,
        schema: rest.length === 1 ? this.resolve(rest[0]) : { [schema.anyOf ? 'anyOf' : 'oneOf']: rest },
      };
    }
    if (Array.isArray(schema.type) && schema.type.includes('null')) {
      const type = schema.type.filter((name) => name !== 'null');
      return { nullable: true, schema: { ...schema, type: type.length === 1 ? type[0] : type } };
    }
    if (schema.enum?.includes(null))
      return { nullable: true, schema: { ...schema, enum: schema.enum.filter((value) => value !== null) } };
    return { nullable: false, schema };
  }

  /** How a property of `parent` may be absent: never (required), may (optional) or either (optional, defaulted). */
  presence(parent: Schema, name: string): Presence {
    if (parent.required?.includes(name)) return 'required';
    return this.resolve(parent.properties?.[name]).default !== undefined ? 'defaulted' : 'optional';
  }

  /** Statements that read `expression` (typed by `raw`) and every field in it. */
  reads(expression: string, raw: Schema, presence: Presence, depth: number, scope: Scope): string[] {
    const { nullable, schema } = this.nullable(raw);
    const absent = presence !== 'required';
    const whole = [`${reader(presence, nullable)}(${expression});`];
    if (depth >= MAX_DEPTH) return whole;
    const variants = (schema.oneOf ?? schema.anyOf)?.map((variant) => this.resolve(variant));
    const type = Array.isArray(schema.type) ? undefined : schema.type;
    let inner: string[] | undefined;
    if (variants?.every((variant) => variant.properties)) {
      inner = this.union(expression, variants, depth, scope);
    } else if (type === 'object' && schema.properties && Object.keys(schema.properties).length > 0) {
      inner = Object.keys(schema.properties).flatMap((name) =>
        this.reads(
          member(expression, name),
          schema.properties?.[name] ?? {},
          this.presence(schema, name),
          depth + 1,
          scope,
        ),
      );
    } else if (type === 'array' && schema.items) {
      const items = this.nullable(schema.items);
      const structured = items.schema.properties || items.schema.oneOf || items.schema.anyOf;
      if (!structured && !items.nullable) return whole;
      let name = singular(expression.replace(/^.*[.?[\]']/, '').replace(/\W/g, '') || 'item');
      while (scope.names.has(name)) name = `${name}Item`;
      scope.names.add(name);
      const each = this.reads(name, schema.items, 'required', depth + 1, scope);
      scope.names.delete(name);
      const loop = [
        `for (const ${name} of ${expression}${absent || nullable ? ' ?? []' : ''}) {`,
        ...indent(each),
        '}',
      ];
      return absent || nullable ? [...whole, ...loop] : loop;
    } else if (scope.request && untyped(schema)) {
      // Any JSON (the network webhook's open envelope): `unknown` is what a client sends there, no cast involved.
      return [`// ${expression}: any JSON, so \`unknown\` in a request`];
    }
    if (!inner) return whole;
    // An object that may be absent or null: read as such, then its fields once `if` has narrowed it.
    return absent || nullable ? [...whole, `if (${expression}) {`, ...indent(inner), '}'] : inner;
  }

  /** A union of objects: the fields all variants share, then, narrowed by the discriminator, each variant's own. */
  union(expression: string, variants: Schema[], depth: number, scope: Scope): string[] {
    const constant = (variant: Schema, name: string) => {
      const property = this.resolve(variant.properties?.[name]);
      return property.const !== undefined ? property.const : property.enum?.length === 1 ? property.enum[0] : undefined;
    };
    const first = Object.keys(variants[0]?.properties ?? {});
    const values = (name: string) => variants.map((variant) => constant(variant, name));
    const discriminator = first.find(
      (name) =>
        variants.every((variant) => variant.required?.includes(name) && constant(variant, name) !== undefined) &&
        new Set(values(name)).size === variants.length,
    );
    for (const [field, wanted] of Object.entries(CONTRACT_RULES.discriminators)) {
      if (variants.some((variant) => variant.properties?.[field]) && discriminator !== wanted) {
        this.failures.push(
          `${scope.where}, ${expression}: a union whose variants carry \`${field}\` is discriminated by ${discriminator ?? 'nothing'}, ` +
            `not by \`${wanted}\` (CONTRACT §19: a generated client narrows it)`,
        );
      }
    }
    const same = (name: string) => {
      const shapes = variants.map((variant) =>
        JSON.stringify([variant.properties?.[name], this.presence(variant, name)]),
      );
      return shapes.every((shape) => shape === shapes[0]);
    };
    const common = first.filter((name) => variants.every((variant) => variant.properties?.[name]));
    const lines: string[] = [];
    for (const name of common) {
      if (name === discriminator) continue;
      const [head = {}] = variants;
      if (same(name)) {
        lines.push(
          ...this.reads(
            member(expression, name),
            head.properties?.[name] ?? {},
            this.presence(head, name),
            depth + 1,
            scope,
          ),
        );
      } else if (!discriminator) {
        // Without a discriminator a field whose shape differs by variant can only be read whole.
        const presences = new Set(variants.map((variant) => this.presence(variant, name)));
        const nullable = variants.some((variant) => this.nullable(variant.properties?.[name] ?? {}).nullable);
        const presence =
          presences.size === 1
            ? ([...presences][0] ?? 'optional')
            : presences.has('required')
              ? 'defaulted'
              : 'optional';
        lines.push(`${reader(presence, nullable)}(${member(expression, name)});`);
      }
    }
    const unread = variants.flatMap((variant) =>
      Object.keys(variant.properties ?? {}).filter((name) => !common.includes(name)),
    );
    if (!discriminator) {
      if (unread.length > 0) {
        this.failures.push(
          `${scope.where}, ${expression}: a union without a discriminator (a property with a distinct \`const\` in every variant): ` +
            `${[...new Set(unread)].join(', ')} cannot be read without narrowing`,
        );
      }
      return lines.length > 0 ? lines : [`read(${expression});`];
    }
    lines.push(`read(${member(expression, discriminator)});`, `switch (${member(expression, discriminator)}) {`);
    for (const variant of variants) {
      lines.push(`  case ${JSON.stringify(constant(variant, discriminator))}: {`);
      for (const [name, child] of Object.entries(variant.properties ?? {})) {
        if (name === discriminator || (common.includes(name) && same(name))) continue;
        const own = this.reads(member(expression, name), child, this.presence(variant, name), depth + 1, scope);
        lines.push(...indent(own, '    '));
      }
      lines.push('    break;', '  }');
    }
    lines.push('  default:', `    exhaustive(${expression});`, '}');
    return lines;
  }

  /** The component a response's media type refers to directly (`Problem`), if any. */
  component(schema: Schema | undefined): string | undefined {
    return schema?.$ref?.startsWith(REF) ? schema.$ref.slice(REF.length) : undefined;
  }

  /** CONTRACT_RULES on one operation's responses; its statuses that have a body. */
  statuses({ method, path, operation }: Walked): { status: number; media: [string, Schema][] }[] {
    const where = `${operation.operationId} (${method.toUpperCase()} ${path})`;
    const result: { status: number; media: [string, Schema][] }[] = [];
    for (const [code, response] of Object.entries(operation.responses)) {
      const status = Number(code);
      if (!Number.isInteger(status)) {
        this.failures.push(`${where}: response "${code}" is not a status; the walkthroughs walk declared statuses`);
        continue;
      }
      const media = Object.entries(response.content ?? {}).map(([type, { schema }]): [string, Schema] => [
        type,
        schema ?? {},
      ]);
      if (media.length === 0 && !CONTRACT_RULES.mayHaveNoBody(status)) {
        this.failures.push(`${where}: ${status} declares no body (CONTRACT §19: every declared response has content)`);
      }
      if (status >= 400) {
        for (const [type, schema] of media) {
          const wanted = CONTRACT_RULES.errorBodies[type];
          if (!wanted || this.component(schema) !== wanted) {
            this.failures.push(
              `${where}: ${status} ${type} is ${this.component(schema) ?? 'an inline schema'}, not a problem document ` +
                `(CONTRACT §19: ${Object.entries(CONTRACT_RULES.errorBodies)
                  .map(([name, component]) => `${name} is ${component}`)
                  .join(', ')})`,
            );
          }
        }
      }
      if (media.length > 0) result.push({ status, media });
    }
    return result;
  }
}

/** A value of the parameter's schema: its example, default, first enum value, or one of its type. */
function parameterValue(parameter: Parameter): string {
  const schema = parameter.schema ?? {};
  const value =
    parameter.example ??
    schema.example ??
    schema.default ??
    schema.const ??
    schema.enum?.[0] ??
    typed(schema, parameter);
  return JSON.stringify(value);
}
function typed(schema: Schema, parameter: Parameter): unknown {
  const type = Array.isArray(schema.type) ? schema.type.find((name) => name !== 'null') : schema.type;
  if (type === 'integer' || type === 'number') return schema.minimum ?? 1;
  if (type === 'boolean') return true;
  return `<${parameter.name}>`;
}
const object = (parameters: Parameter[]) =>
  `{ ${parameters.map((parameter) => `${key(parameter.name)}: ${parameterValue(parameter)}`).join(', ')} }`;

/** How one generator's client is called, how its types are named, and how a walk reads what a call returns. */
interface Dialect {
  about: string;
  imports(operationIds: string[], components: string[]): string[];
  /** The call, with every parameter and the body. */
  call(walked: Walked, body: string | undefined, text: boolean): string;
  /**
   * `status`: the call returns a union narrowed by `response.status`, each status with its own body (orval).
   * `data and error`: the call returns the success body as `data` and every error body as one union, `error`; each
   * status is then read again from the types the generator has for it, which `responses` names.
   */
  returns: 'status' | 'data and error';
  responses?: {
    /** The parameters of the function that reads every declared response in this generator's types. */
    parameters(operation: Operation): string;
    /** A status's body of one media type, in those parameters. */
    body(status: number, type: string): string;
    /** Whether a status with several media types has one body per media type there (else one, of either). */
    perMediaType: boolean;
  };
  /** The type of the operation's request body. */
  requestType(walked: Walked): string;
}

const sent = (operation: Operation, where: Parameter['in']) =>
  (operation.parameters ?? []).filter((parameter) => parameter.in === where);
/** The parameters an operation is called with, grouped by where they go, `header` named as the client names it. */
const grouped = (operation: Operation, header: string) =>
  (['path', 'query', 'header'] as const)
    .map((where) => [where, sent(operation, where)] as const)
    .filter(([, parameters]) => parameters.length > 0)
    .map(([where, parameters]) => `${where === 'header' ? header : where}: ${object(parameters)}`);

const READERS = [
  'read',
  'readOptional',
  'readDefaulted',
  'readNullable',
  'readOptionalNullable',
  'readDefaultedNullable',
];
const READ = `import { exhaustive, ${READERS.join(', ')} } from '../../read';`;

const DIALECTS: Record<Generator, Dialect> = {
  'openapi-fetch': {
    about: 'openapi-typescript (types) and openapi-fetch (calls)',
    imports: (_, components) => [
      "import createClient from 'openapi-fetch';",
      "import type { components, operations, paths } from '../openapi-typescript/schema';",
      READ,
      '',
      ...components.map((name) => `type ${name} = components['schemas']['${name}'];`),
      '',
      "const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:3000', headers: { authorization: 'Bearer <accessToken>' } });",
    ],
    call({ method, path, operation }, body, text) {
      const params = grouped(operation, 'header');
      const options = [
        ...(params.length > 0 ? [`params: { ${params.join(', ')} }`] : []),
        ...(body !== undefined ? [`body: ${body}`] : []),
        ...(text ? [`parseAs: 'text'`] : []),
      ];
      return `client.${method.toUpperCase()}('${path}'${options.length > 0 ? `, { ${options.join(', ')} }` : ''})`;
    },
    returns: 'data and error',
    responses: {
      parameters: (operation) => `responses: operations['${operation.operationId}']['responses']`,
      body: (status, type) => `responses[${status}].content['${type}']`,
      perMediaType: true,
    },
    requestType: ({ operation }) =>
      `NonNullable<operations['${operation.operationId}']['requestBody']>['content']['application/json']`,
  },
  orval: {
    about: "orval's fetch client",
    imports: (operationIds, components) => [
      `import { ${[...components.map((name) => `type ${name}`), ...operationIds].join(', ')} } from '../orval/client';`,
      READ,
      '',
      "const auth = { headers: { authorization: 'Bearer <accessToken>' } };",
    ],
    call({ operation }, body) {
      const query = sent(operation, 'query');
      const headers = sent(operation, 'header');
      const args = [
        ...sent(operation, 'path').map(parameterValue),
        ...(body !== undefined ? [body] : []),
        // orval takes the query as one object before the RequestInit, and the headers only in the RequestInit.
        ...(query.length > 0 ? [object(query)] : []),
        headers.length > 0 ? `{ headers: { ...auth.headers, ...${object(headers)} } }` : 'auth',
      ];
      return `${operation.operationId}(${args.join(', ')})`;
    },
    returns: 'status',
    requestType: ({ operation }) => `Parameters<typeof ${operation.operationId}>[${sent(operation, 'path').length}]`,
  },
  'hey-api': {
    about: "@hey-api/openapi-ts's fetch client",
    imports: (operationIds, components) => [
      "import { createClient, createConfig } from '../hey-api/client';",
      `import { ${operationIds.join(', ')} } from '../hey-api/sdk.gen';`,
      `import type { ${components.join(', ')} } from '../hey-api/types.gen';`,
      "import type * as Types from '../hey-api/types.gen';",
      READ,
      '',
      "const client = createClient(createConfig({ baseUrl: 'http://127.0.0.1:3000', auth: () => '<accessToken>' }));",
    ],
    call({ operation }, body, text) {
      const options = [
        'client',
        ...grouped(operation, 'headers'),
        ...(body !== undefined ? [`body: ${body}`] : []),
        ...(text ? [`parseAs: 'text'`] : []),
      ];
      return `${operation.operationId}({ ${options.join(', ')} })`;
    },
    returns: 'data and error',
    responses: {
      parameters: ({ operationId }) =>
        `errors: Types.${capitalised(operationId)}Errors, responses: Types.${capitalised(operationId)}Responses`,
      body: (status) => `${status >= 400 ? 'errors' : 'responses'}[${status}]`,
      // @hey-api/openapi-ts 0.95 keeps one media type per status (docs/api-guide.md#other-generators).
      perMediaType: false,
    },
    requestType: ({ operation }) => `Types.${capitalised(operation.operationId)}Data['body']`,
  },
};

/** The source of each generator's walkthrough, and what the document breaks of CONTRACT_RULES. */
export function walkthroughs(document: Document): {
  sources: Record<Generator, string>;
  operations: Walked[];
  failures: string[];
} {
  const writer = new Writer(document);
  const sources: Record<Generator, string> = {
    'openapi-fetch': source(writer, 'openapi-fetch'),
    orval: source(writer, 'orval'),
    'hey-api': source(writer, 'hey-api'),
  };
  return { sources, operations: writer.operations, failures: [...new Set(writer.failures)] };
}

/** What one walkthrough file needs to know besides the document. */
interface File {
  writer: Writer;
  dialect: Dialect;
  /** The components an error body is (Problem, GatewayError), each with its reader, `read<Name>`. */
  errorComponents: string[];
  /** A scope whose names are those the file declares or imports, which loop variables must not shadow. */
  scope(where: string, request?: boolean): Scope;
}

function source(writer: Writer, generator: Generator): string {
  const dialect = DIALECTS[generator];
  const ids = writer.operations.map(({ operation }) => operation.operationId);
  const errorComponents = [...new Set(Object.values(CONTRACT_RULES.errorBodies))];
  const declared = [
    ...['data', 'error', 'response', 'responses', 'errors', 'body', 'value', 'client', 'auth', 'exhaustive'],
    ...['readError', 'Types', 'components', 'operations', 'paths', 'createClient', 'createConfig'],
    ...READERS,
    ...errorComponents.flatMap((name) => [name, `read${name}`]),
    ...ids,
  ];
  const file: File = {
    writer,
    dialect,
    errorComponents,
    scope: (where, request = false) => ({ where, request, names: new Set(declared) }),
  };
  const readers = errorComponents.map((name) =>
    [
      `/** Every field of ${name} (the document's components.schemas.${name}). */`,
      `function read${name}(value: ${name}): void {`,
      ...indent(
        writer.reads('value', writer.componentSchema(name), 'required', 0, file.scope(`components.schemas.${name}`)),
      ),
      '}',
    ].join('\n'),
  );
  return [
    `/**
 * CONTRACT §19 with ${dialect.about}, written by clients/generator-check/walkthroughs.ts from the served document
 * when \`npm run test:generators\` runs (do not edit: it is written again each time). Type-checked, never run.
 */`,
    ...dialect.imports(ids, errorComponents),
    '',
    readers.join('\n\n'),
    '',
    readErrorFunction(writer, errorComponents),
    '',
    writer.operations.map((walked) => walk(file, walked)).join('\n\n'),
    '',
  ].join('\n');
}

/** `readError`: a union of the error components, narrowed by a field only one of them has. */
function readErrorFunction(writer: Writer, components: string[]): string {
  const lines: string[] = [];
  const remaining = [...components];
  while (remaining.length > 1) {
    const found = remaining
      .map((name) => {
        const others = remaining.filter((other) => other !== name).map((other) => writer.componentSchema(other));
        const field = writer
          .componentSchema(name)
          .required?.find((required) => others.every((other) => !other.properties?.[required]));
        return field ? { name, field } : undefined;
      })
      .find(Boolean);
    if (!found) {
      writer.failures.push(`no field tells ${remaining.join(' from ')} apart (readError narrows by one)`);
      break;
    }
    lines.push(`if ('${found.field}' in error) return read${found.name}(error);`);
    remaining.splice(remaining.indexOf(found.name), 1);
  }
  lines.push(`read${remaining[0]}(error);`);
  return [
    `/** Reads any problem document: ${components.join(' or ')}. */`,
    `function readError(error: ${components.join(' | ')}): void {`,
    ...indent(lines),
    '}',
  ].join('\n');
}

type Status = { status: number; media: [string, Schema][] };

/** How one status's body is read: its component's reader, readError for a union of them, or field by field. */
function readBody(file: File, operation: Operation, status: number, expression: string, media: [string, Schema][]) {
  const components = media.map(([, schema]) => file.writer.component(schema));
  if (components.every((component) => component && file.errorComponents.includes(component))) {
    return [components.length === 1 ? `read${components[0]}(${expression});` : `readError(${expression});`];
  }
  const [first] = media;
  if (media.length > 1)
    file.writer.failures.push(`${operation.operationId} ${status}: several media types (the walk reads one)`);
  const scope = file.scope(`${operation.operationId} ${status}`);
  return first ? file.writer.reads(expression, first[1], 'required', 0, scope) : [];
}

/** orval: one `case` per declared status, then `exhaustive`: the generator knows no other. */
function byStatus(file: File, { operation }: Walked, call: string, statuses: Status[]): string[] {
  const lines = [`const response = await ${call};`, 'switch (response.status) {'];
  for (const { status, media } of statuses) {
    lines.push(`  case ${status}: {`, ...indent(readBody(file, operation, status, 'response.data', media), '    '));
    lines.push('    break;', '  }');
  }
  for (const code of Object.keys(operation.responses)) {
    if (statuses.every(({ status }) => status !== Number(code)))
      lines.push(`  case ${code}:`, '    read(response.status);', '    break;');
  }
  lines.push('  default:', '    exhaustive(response);', '}');
  return lines;
}

/** openapi-fetch, hey-api: the call's `data` and `error`, then every status from the generator's types for it. */
function dataAndError(file: File, walked: Walked, call: string, statuses: Status[]): [string[], string] {
  const { operation } = walked;
  const responses = file.dialect.responses;
  const successes = statuses.filter(({ status }) => status < 300);
  const [only] = successes;
  const readsData = successes.length === 1 && only !== undefined;
  const lines = [`const { ${readsData ? 'data, ' : ''}error, response } = await ${call};`];
  lines.push('if (error) return readError(error);', 'read(response.status);');
  if (readsData) lines.push(...readBody(file, operation, only.status, 'data', only.media));
  const each = statuses
    .filter(({ status }) => !(readsData && status === only.status))
    .flatMap(({ status, media }) =>
      !responses
        ? []
        : responses.perMediaType
          ? media.flatMap((one) => readBody(file, operation, status, responses.body(status, one[0]), [one]))
          : readBody(file, operation, status, responses.body(status, media[0]?.[0] ?? ''), media),
    );
  const statusByStatus = [
    `/** ${operation.operationId}: every declared response with a body, status by status, in the generator's types. */`,
    `export function walk${capitalised(operation.operationId)}Responses(${responses?.parameters(operation) ?? ''}): void {`,
    ...indent(each),
    '}',
  ].join('\n');
  return [lines, statusByStatus];
}

/** One operation's walk: the call and what it returns, every status in the generator's types, the request body. */
function walk(file: File, walked: Walked): string {
  const { method, path, operation } = walked;
  const name = capitalised(operation.operationId);
  const statuses = file.writer.statuses(walked);
  const content = operation.requestBody?.content['application/json'];
  if (operation.requestBody && content?.example === undefined) {
    file.writer.failures.push(`${operation.operationId}: its request body has no application/json example to send`);
  }
  const body = content?.example === undefined ? undefined : JSON.stringify(content.example);
  const text = statuses.some(({ status, media }) => status < 400 && media.some(([type]) => type.startsWith('text/')));
  const call = file.dialect.call(walked, body, text);
  const [lines, statusByStatus]: [string[], string?] =
    file.dialect.returns === 'status'
      ? [byStatus(file, walked, call, statuses)]
      : dataAndError(file, walked, call, statuses);
  const functions = statusByStatus ? [statusByStatus] : [];
  if (content?.schema) {
    functions.push(
      [
        `/** ${operation.operationId}: every field of the request body, in the generator's types. */`,
        `export function walk${name}Request(body: ${file.dialect.requestType(walked)}): void {`,
        ...indent(
          file.writer.reads(
            'body',
            content.schema,
            'required',
            0,
            file.scope(`${operation.operationId}'s request body`, true),
          ),
        ),
        '}',
      ].join('\n'),
    );
  }
  const head = [`/** ${method.toUpperCase()} ${path} */`, `export async function walk${name}(): Promise<void> {`];
  return [[...head, ...indent(lines), '}'].join('\n'), ...functions].join('\n\n');
}
