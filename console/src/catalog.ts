import { api, call } from './api.ts';
import type { PropertySchema } from './filters.tsx';

interface OpenApi {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>;
  webhooks: Record<
    string,
    { post: { summary: string; requestBody: { content: Record<string, { example: unknown }> } } }
  >;
}

let document: Promise<OpenApi> | undefined;

/** The service's own openapi.json, read once: the report types' filters and the event catalog come from it. */
function openApi(): Promise<OpenApi> {
  document ??= call(api.GET('/api/wp-crm/openapi.json')).then((value) => value as unknown as OpenApi);
  document.catch(() => {
    document = undefined;
  });
  return document;
}

export interface ReportTypeFilters {
  reportType: string;
  filters: Record<string, PropertySchema>;
}

/** Each report type with its own filters, from the request body's `oneOf` (discriminated by `reportType`). */
export async function reportTypes(): Promise<ReportTypeFilters[]> {
  const doc = await openApi();
  const body = doc.paths['/api/wp-crm/reports/{organisationId}']?.post?.requestBody?.content['application/json']
    ?.schema as { oneOf: { properties: Record<string, PropertySchema & { const?: string }> }[] };
  return body.oneOf.map(({ properties }) => {
    const { reportType, format: _format, compression: _compression, ...filters } = properties;
    return { reportType: String(reportType?.const), filters };
  });
}

export interface CatalogEntry {
  type: string;
  description: string;
  example: unknown;
}

/** The event catalog: every type the service delivers, what it means, and an example body. */
export async function eventCatalog(): Promise<CatalogEntry[]> {
  const doc = await openApi();
  return Object.entries(doc.webhooks).map(([type, operation]) => ({
    type,
    description: operation.post.summary,
    example: operation.post.requestBody.content['application/json']?.example,
  }));
}
