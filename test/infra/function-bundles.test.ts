import { readdirSync } from 'node:fs';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { functionBuildOptions } from '#infra/aws/constructs/function-bundle';
import { FUNCTION_ACCESS, type FunctionAccess } from '#infra/aws/function-access';
import { ROUTES } from '#shared/routes/index';
import { takesCursor } from '#shared/routes/route';

const FUNCTIONS = readdirSync(new URL('../../functions/', import.meta.url));
const VERIFIES_TOKENS = new Set(ROUTES.filter((route) => route.auth !== 'public').map((route) => route.fn));
const PAGES_LISTS = new Set(ROUTES.filter(takesCursor).map((route) => route.fn));

/** The keeper of the JWT key set is a custom resource, outside FUNCTION_ACCESS. */
const JWT_KEYS: FunctionAccess = { signsTokens: true, servesPublicKeys: true };

/**
 * The SDK clients a function may call, derived from what the stack grants it (function-access.ts) and whether it
 * verifies bearer tokens (the public JWKS in SSM).
 */
function expectedClients(fn: string): string[] {
  const access = fn === 'jwt-keys' ? JWT_KEYS : FUNCTION_ACCESS[fn];
  if (!access) throw new Error(`${fn} has no entry in FUNCTION_ACCESS`);
  const clients = new Set<string>();
  if (access.table) clients.add('client-dynamodb');
  if (access.sendsTo?.length) clients.add('client-sqs');
  if (access.publishesEvents) clients.add('client-eventbridge');
  if (access.reports) clients.add('client-s3');
  if (access.signsTokens || access.verifiesNetworkWebhooks || PAGES_LISTS.has(fn))
    clients.add('client-secrets-manager');
  // group-sweeper holds the network grant but only fails, requeues and republishes requests: it never calls Graph.
  if (access.callsNetwork && fn !== 'group-sweeper') clients.add('client-secrets-manager');
  if (access.webhookSecrets) clients.add('client-kms');
  if (VERIFIES_TOKENS.has(fn) || access.servesPublicKeys) clients.add('client-ssm');
  return [...clients].sort();
}

/**
 * AwsKeyStore (shared/adapters/keys) imports the commands of both key stores, so a function that reads one store
 * also carries the other store's command class (a few KB), never its client.
 */
function commandOnly(fn: string, clients: string[]): string[] {
  const keys = clients.includes('client-ssm') || fn === 'issue-token';
  if (!keys) return [];
  return ['client-secrets-manager', 'client-ssm'].filter((pkg) => !clients.includes(pkg));
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
    expect(bundle.packages).toEqual([...clients, ...commandOnly(fn, clients)].sort());
  });

  it('keeps get-health, get-openapi and route-not-found free of the SDK and of jose', () => {
    for (const fn of ['get-health', 'get-openapi', 'route-not-found']) {
      const files = bundles.get(fn)!.files;

      expect(files.filter((file) => /node_modules\/(@aws-sdk|@smithy|jose)\//.test(file))).toEqual([]);
    }
  });

  it('bundles token verification and the key store only into functions that verify or issue tokens', () => {
    const verifying = FUNCTIONS.filter((fn) =>
      bundles.get(fn)!.files.some((file) => file.includes('/jose/') && file.endsWith('/jwt/verify.js')),
    );
    const withKeys = FUNCTIONS.filter((fn) =>
      bundles.get(fn)!.files.some((file) => file.startsWith('shared/adapters/keys/aws-key-store')),
    );

    expect(verifying.sort()).toEqual([...VERIFIES_TOKENS].sort());
    expect(withKeys.sort()).toEqual([...VERIFIES_TOKENS, 'get-jwks', 'issue-token'].sort());
  });

  it('never bundles the whole-service composition (shared/config/deps.ts)', () => {
    const withDeps = FUNCTIONS.filter((fn) => bundles.get(fn)!.files.includes('shared/config/deps.ts'));

    expect(withDeps).toEqual([]);
  });
});
