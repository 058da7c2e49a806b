/**
 * Bundled in place of `@aws-sdk/middleware-endpoint-discovery` by an esbuild alias in FUNCTION_BUNDLING
 * (infra/aws/constructs/function-bundle.ts, NO_ENDPOINT_DISCOVERY; bench/RESULTS.md, P1).
 *
 * The DynamoDB client is the only client here that imports the module, and it takes two names from it: the config
 * option `NODE_ENDPOINT_DISCOVERY_CONFIG_OPTIONS` (its runtimeConfig) and `resolveEndpointDiscoveryConfig` (its
 * constructor). None of its commands installs the discovery middleware (`getEndpointDiscoveryPlugin`), so the
 * configuration the real module resolves is never read, yet resolving it builds an `EndpointCache`, which brings
 * `@aws-sdk/endpoint-cache`, `mnemonist`'s LRU cache and `obliterator` (about 8 KB, CommonJS wrapped) into every
 * function with a DynamoDB client, initialised at every cold start for nothing.
 *
 * This module resolves the same configuration without the cache: `endpointDiscoveryEnabled` is a provider as before,
 * read from the client option, `AWS_ENABLE_ENDPOINT_DISCOVERY` / `AWS_ENDPOINT_DISCOVERY_ENABLED` or the shared
 * config's `endpoint_discovery_enabled`, with the real module's rules. A client constructed with discovery
 * explicitly on fails at once with UNSUPPORTED instead of silently sending to the regional endpoint. Any other name
 * imported statically from the module (a newer client installing the middleware) fails the build: esbuild reports
 * no matching export, so the stand-in cannot be outgrown unnoticed.
 */
export const UNSUPPORTED =
  'endpoint discovery is not bundled into the functions (shared/adapters/aws/no-endpoint-discovery.ts): they call the regional endpoint';

const ENVIRONMENT_VARIABLES = ['AWS_ENABLE_ENDPOINT_DISCOVERY', 'AWS_ENDPOINT_DISCOVERY_ENABLED'] as const;
const CONFIG_ENTRY = 'endpoint_discovery_enabled';
const isOn = (value: string) => value !== 'false' && value !== '0';

/** As the real module's: where the SDK's config loader finds whether endpoint discovery is on (unset: undefined). */
export const NODE_ENDPOINT_DISCOVERY_CONFIG_OPTIONS = {
  environmentVariableSelector(env: Record<string, string | undefined>): boolean | undefined {
    for (const name of ENVIRONMENT_VARIABLES) {
      if (!(name in env)) continue;
      const value = env[name];
      if (!value) throw new Error(`Environment variable ${name} can't be empty of undefined, got "${value}"`);
      return isOn(value);
    }
    return undefined;
  },
  configFileSelector(profile: Record<string, string | undefined>): boolean | undefined {
    if (!(CONFIG_ENTRY in profile)) return undefined;
    const value = profile[CONFIG_ENTRY];
    if (value === undefined) throw new Error(`Shared config entry ${CONFIG_ENTRY} can't be undefined, got "${value}"`);
    return isOn(value);
  },
  default: undefined,
};

interface EndpointDiscoveryInput {
  endpointDiscoveryEnabled?: boolean;
  endpointDiscoveryEnabledProvider: () => Promise<boolean | undefined>;
}

/** As the real module's, in place on the client's config, without the endpoint cache no command reads. */
export function resolveEndpointDiscoveryConfig<T extends EndpointDiscoveryInput>(
  input: T,
  { endpointDiscoveryCommandCtor }: { endpointDiscoveryCommandCtor: unknown },
) {
  const { endpointDiscoveryEnabled, endpointDiscoveryEnabledProvider } = input;
  if (endpointDiscoveryEnabled === true) throw new Error(UNSUPPORTED);
  return Object.assign(input, {
    endpointDiscoveryCommandCtor,
    endpointDiscoveryEnabled:
      endpointDiscoveryEnabled !== undefined
        ? () => Promise.resolve(endpointDiscoveryEnabled)
        : endpointDiscoveryEnabledProvider,
    isClientEndpointDiscoveryEnabled: endpointDiscoveryEnabled !== undefined,
  });
}
