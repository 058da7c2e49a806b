import { readFile } from 'node:fs/promises';

/**
 * What serving openapi.json needs: the file a bundle carries it in, its loading, and the server entry of the
 * deployment serving it. Kept apart from document.ts so a function that serves the document loads the schemas,
 * examples and converter that build it only when it has no built copy.
 */

/** The document as built at synth, beside the get-openapi bundle (infra/aws/function-files.ts). */
export const OPENAPI_FILE = 'openapi.json';

/** The document as served from `origin` (scheme, host and port, no path): `servers` names that deployment. */
export function withServer(document: Record<string, unknown>, origin: string): Record<string, unknown> {
  const { openapi, info, ...rest } = document;
  return { openapi, info, servers: [{ url: origin, description: 'This deployment' }], ...rest };
}

/**
 * The document, read from `file` (a deployed bundle's copy built at synth beside it: a file read and a JSON parse
 * instead of converting every schema at each cold start, CONTRACT §22's P1), or built when there is no such file
 * (the source, run by `npm start`).
 */
export async function loadServedDocument(file: URL): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const { openApiDocument } = await import('#shared/openapi/document');
    return openApiDocument();
  }
}
