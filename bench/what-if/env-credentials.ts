/**
 * What-if for P1 only, never deployed: the SDK's default credential chain cut down to the environment variables,
 * which is where Lambda puts the function's credentials (the chain's SSO, ini, process, web-identity, container and
 * IMDS providers are never reached there).
 */
export { fromEnv as defaultProvider } from '@aws-sdk/credential-provider-env';
