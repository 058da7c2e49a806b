/**
 * What serving openapi.json needs, apart from building it: the file a bundle carries it in, and the server entry of
 * the deployment serving it. Kept apart from document.ts so a function that serves the document need not load the
 * schemas, examples and converter that build it.
 */

/** The document as built at synth, beside the get-openapi bundle (infra/aws/function-files.ts). */
export const OPENAPI_FILE = 'openapi.json';

/** The document as served from `origin` (scheme, host and port, no path): `servers` names that deployment. */
export function withServer(document: Record<string, unknown>, origin: string): Record<string, unknown> {
  const { openapi, info, ...rest } = document;
  return { openapi, info, servers: [{ url: origin, description: 'This deployment' }], ...rest };
}
