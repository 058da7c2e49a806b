import { readdirSync } from 'node:fs';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { functionBuildOptions } from '#infra/aws/constructs/function-bundle';
import { type FunctionAccess, FUNCTIONS as ROWS } from '#infra/aws/functions';
import { ROUTES } from '#shared/routes/index';
import { takesCursor } from '#shared/routes/route';

const FUNCTIONS = readdirSync(new URL('../../functions/', import.meta.url));
const VERIFIES_TOKENS = new Set(ROUTES.filter((route) => route.auth !== 'public').map((route) => route.fn));
const PAGES_LISTS = new Set(ROUTES.filter(takesCursor).map((route) => route.fn));

/** The keeper of the JWT key set is a custom resource, outside the functions' rows. */
const JWT_KEYS: FunctionAccess = { signsTokens: true, servesPublicKeys: true };

/**
 * The SDK clients a function may call, derived from what the stack grants it (its row's access, functions.ts) and whether it
 * verifies bearer tokens (the public JWKS in SSM).
 */
function expectedClients(fn: string): string[] {
  const access = fn === 'jwt-keys' ? JWT_KEYS : ROWS[fn]?.access;
  if (!access) throw new Error(`${fn} has no row in FUNCTIONS (infra/aws/functions.ts)`);
  const clients = new Set<string>();
  if (access.table) clients.add('client-dynamodb');
  if (access.sendsTo?.length) clients.add('client-sqs');
  if (access.publishesEvents) clients.add('client-eventbridge');
  if (access.signsTokens || access.verifiesNetworkWebhooks || PAGES_LISTS.has(fn))
    clients.add('client-secrets-manager');
  // group-sweeper calls Graph too: it asks Meta for a request's group before timing it out (CONTRACT §18).
  if (access.callsNetwork) clients.add('client-secrets-manager');
  if (access.webhookSecrets) clients.add('client-kms');
  // Verifiers read the public JWKS item from the table; only the key keeper writes the SSM parameter too.
  if (VERIFIES_TOKENS.has(fn) || access.servesPublicKeys) clients.add('client-dynamodb');
  if (fn === 'jwt-keys') clients.add('client-ssm');
  return [...clients].sort();
}

interface Contents {
  /** `@aws-sdk/client-*` packages whose client class (`…Client.js`) is in the bundle. */
  clients: string[];
  /** `@aws-sdk/client-*` packages with any byte in the bundle. */
  packages: string[];
  files: string[];
}

function contents(metafile: Metafile): Contents {
  const output = Object.values(metafile.outputs).find((out) => out.entryPoint);
  if (!output) throw new Error('no entry point output');
  const files = Object.entries(output.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([file]) => file);
  const sdk = (file: string) => /node_modules\/@aws-sdk\/(client-[a-z0-9-]+)\//.exec(file)?.[1];
  const packages = new Set(files.map(sdk).filter((pkg): pkg is string => pkg !== undefined));
  const clients = files.filter((file) => /\/dist-es\/[A-Z][A-Za-z0-9]*Client\.js$/.test(file)).map(sdk);
  return {
    clients: [...new Set(clients)].filter((pkg): pkg is string => pkg !== undefined).sort(),
    packages: [...packages].sort(),
    files,
  };
}

describe('function bundles (esbuild with the stack’s bundling options)', () => {
  const bundles = new Map<string, Contents>();

  beforeAll(async () => {
    const results = await Promise.all(
      FUNCTIONS.map(async (fn) => {
        const result = await build({ ...functionBuildOptions(fn, `/tmp/wpcrm-bundle-test/${fn}`), write: false });
        return [fn, contents(result.metafile!)] as const;
      }),
    );
    for (const [fn, bundle] of results) bundles.set(fn, bundle);
  }, 180_000);

  it.each(FUNCTIONS)('%s constructs only the SDK clients its grants allow', (fn) => {
    const bundle = bundles.get(fn)!;
    const clients = expectedClients(fn);

    expect(bundle.clients).toEqual(clients);
    expect(bundle.packages).toEqual(clients);
  });

  it('keeps get-health, get-openapi and route-not-found free of the SDK and of jose', () => {
    for (const fn of ['get-health', 'get-openapi', 'route-not-found']) {
      const files = bundles.get(fn)!.files;

      expect(files.filter((file) => /node_modules\/(@aws-sdk|@smithy|jose)\//.test(file))).toEqual([]);
    }
  });

  it('bundles token verification and the key store only into functions that verify or issue tokens (the console sessions issue them too)', () => {
    const verifying = FUNCTIONS.filter((fn) =>
      bundles.get(fn)!.files.some((file) => file.includes('/jose/') && file.endsWith('/jwt/verify.js')),
    );
    const withKeys = (adapter: string) =>
      FUNCTIONS.filter((fn) => bundles.get(fn)!.files.includes(`shared/adapters/${adapter}.ts`)).sort();

    expect(verifying.sort()).toEqual([...VERIFIES_TOKENS].sort());
    expect(withKeys('dynamodb/public-key-store')).toEqual([...VERIFIES_TOKENS, 'get-jwks'].sort());
    const signing = FUNCTIONS.filter((fn) => ROWS[fn]?.access.signsTokens).sort();
    expect(signing).toEqual(['issue-token', 'refresh-console-session', 'start-console-session']);
    expect(withKeys('keys/secrets-manager-key-set')).toEqual(signing);
  });

  it('bundles the environment credential provider instead of the SDK default chain and its STS and SSO clients', () => {
    for (const fn of FUNCTIONS) {
      const files = bundles.get(fn)!.files;
      const chain = files.filter((file) =>
        /node_modules\/@aws-sdk\/(credential-provider-(node|ini|sso|process|web-identity|http)|token-providers|nested-clients|client-sso|client-sts)\//.test(
          file,
        ),
      );

      expect(chain, fn).toEqual([]);
      if (bundles.get(fn)!.clients.length > 0) {
        expect(
          files.some((file) => file.includes('/@aws-sdk/credential-provider-env/')),
          fn,
        ).toBe(true);
      }
    }
  });

  it('bundles the event-streams stand-in in place of @smithy/core/event-streams wherever an SDK client is', () => {
    for (const fn of FUNCTIONS) {
      const files = bundles.get(fn)!.files;

      expect(
        files.filter((file) => file.includes('/@smithy/core/dist-es/submodules/event-streams/')),
        fn,
      ).toEqual([]);
      if (bundles.get(fn)!.clients.length > 0) expect(files, fn).toContain('shared/adapters/aws/no-event-streams.ts');
    }
  });

  it('bundles the endpoint-discovery stand-in, and no endpoint cache, wherever the DynamoDB client is', () => {
    for (const fn of FUNCTIONS) {
      const files = bundles.get(fn)!.files;

      expect(
        files.filter((file) =>
          /node_modules\/(mnemonist|obliterator|@aws-sdk\/(endpoint-cache|middleware-endpoint-discovery))\//.test(file),
        ),
        fn,
      ).toEqual([]);
      if (files.some((file) => file.includes('/@aws-sdk/client-dynamodb/'))) {
        expect(files, fn).toContain('shared/adapters/aws/no-endpoint-discovery.ts');
      }
    }
  });

  it('signs S3 requests with the SigV4 signer alone in the report functions, without the S3 client', () => {
    const signing = FUNCTIONS.filter((fn) =>
      bundles.get(fn)!.files.some((file) => file.includes('/@smithy/signature-v4/')),
    );
    const s3Client = FUNCTIONS.filter((fn) =>
      bundles.get(fn)!.files.some((file) => /\/@aws-sdk\/(client-s3|lib-storage|s3-request-presigner)\//.test(file)),
    );

    expect(signing.filter((fn) => ROWS[fn]?.access.reports).sort()).toEqual(
      FUNCTIONS.filter((fn) => ROWS[fn]?.access.reports).sort(),
    );
    expect(s3Client).toEqual([]);
  });

  it('bundles the report encoders into the report worker alone, and neither fflate nor exceljs (docs/reports.md)', () => {
    const having = (pattern: RegExp) =>
      FUNCTIONS.filter((fn) => bundles.get(fn)!.files.some((file) => pattern.test(file))).sort();

    expect(having(/shared\/domain\/reports\/xlsx\.ts$/)).toEqual(['report-worker']);
    expect(having(/shared\/domain\/reports\/zip\.ts$/)).toEqual(['report-worker']);
    expect(having(/node_modules\/fflate\//)).toEqual([]);
    expect(having(/node_modules\/exceljs\//)).toEqual([]);
  });

  it('never bundles the whole-service composition (shared/config/deps.ts)', () => {
    const withDeps = FUNCTIONS.filter((fn) => bundles.get(fn)!.files.includes('shared/config/deps.ts'));

    expect(withDeps).toEqual([]);
  });
});
