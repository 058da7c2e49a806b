import { ConfigError } from '#shared/config/env';
import { startLocalStack } from './stack.ts';

/** `npm start`: the whole service on this machine (CONTRACT §10). */
async function main() {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  // Local development may run on Node 20; the Lambda runtime is Node 22, where the SDK has nothing to warn about.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const stack = await startLocalStack();
  const { demo, apiUrl, info } = stack;
  if (demo) {
    const owner = demo.credentials.ACCOUNT_OWNER;
    console.log('Demo organisation:', demo.orgId);
    for (const [role, credential] of Object.entries(demo.credentials)) {
      console.log(`  ${role.padEnd(14)} clientId=${credential.clientId} clientSecret=${credential.clientSecret}`);
    }
    console.log('Demo channels:', JSON.stringify(demo.channels));
    console.log(
      JSON.stringify({ demo: { orgId: demo.orgId, credentials: demo.credentials, channels: demo.channels } }),
    );
    console.log('Try:');
    console.log(
      `  curl -s -X POST ${apiUrl}/token -H 'content-type: application/json' -d '${JSON.stringify({ clientId: owner.clientId, clientSecret: owner.clientSecret })}'`,
    );
  }
  console.log(`Ports: ${JSON.stringify(info.ports)} (written to ${stack.dataDir}/stack.json)`);
  console.log(`wp-crm local stack ready at ${apiUrl}`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await stack.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    const port = (error as { port?: number }).port;
    console.error(
      `port ${port} is in use; stop what holds it or choose other ports (PORT, WPCRM_DYNAMODB_PORT, WPCRM_S3_PORT, WPCRM_SIMULATOR_PORT; 0 picks a free one)`,
    );
  } else {
    console.error('the local stack failed to start:', error);
  }
  process.exit(1);
});
