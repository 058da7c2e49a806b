import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { openApiDocument, withServer } from '#shared/openapi/document';

/** Writes openapi.json as the local stack serves it on its default port, for `npm run lint:openapi`. */
const [file] = process.argv.slice(2);
if (!file) throw new Error('usage: write-openapi.ts <file>');
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(withServer(openApiDocument(), 'http://127.0.0.1:3000'), null, 2)}\n`);
