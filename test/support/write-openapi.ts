import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { forPrism, openApiDocument } from '#shared/openapi/document';
import { withServer } from '#shared/openapi/served';

/**
 * Writes openapi.json as the local stack serves it on its default port, for `npm run lint:openapi`; with `--prism`,
 * the copy Stoplight Prism validates with (`npm run openapi:prism`; docs/api-guide.md, Validating with Prism).
 */
const [file, flag] = process.argv.slice(2);
if (!file) throw new Error('usage: write-openapi.ts <file> [--prism]');
const document = withServer(openApiDocument(), 'http://127.0.0.1:3000');
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(flag === '--prism' ? forPrism(document) : document, null, 2)}\n`);
