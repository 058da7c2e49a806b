/**
 * Bundled in place of `@aws-sdk/credential-provider-node` (FUNCTION_BUNDLING's esbuild alias): every SDK client's
 * default credential chain becomes the environment provider alone. Lambda puts a function's role credentials in
 * `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`, which is the first link of the default chain;
 * the rest of it (SSO, ini files, process, web identity, container, IMDS) is never reached there, yet the SDK imports
 * it statically, with its own STS and SSO clients: about 130 KB of every bundle and a fifth of its import time
 * (bench/RESULTS.md, P1). `npm start` runs the sources unbundled and keeps the full chain.
 */
export { fromEnv as defaultProvider } from '@aws-sdk/credential-provider-env';
