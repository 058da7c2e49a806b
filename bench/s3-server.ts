import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startS3 } from '#infra/local/servers';

/** The embedded S3 server in its own process, so the benchmark's RSS is the report path's alone. */
const directory = await mkdtemp(join(tmpdir(), 'wpcrm-bench-s3-'));
const server = await startS3({ port: 0, directory, bucket: 'bench' });
process.send?.({ endpoint: server.endpoint, directory });
process.on('message', async () => {
  await server.close();
  process.exit(0);
});
