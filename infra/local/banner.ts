import type { DemoSeed } from './seed.ts';

/** What `npm start` and `npm run start:cdk` print once they serve (CONTRACT §10): the demo, the ports, `ready`. */
export function printBanner(stack: {
  demo: DemoSeed | undefined;
  apiUrl: string;
  dataDir: string;
  info: { ports: object };
  label: string;
  /** A one-time link to the demo organisation's console (infra/local/console-link.ts). */
  consoleLink?: string;
}): void {
  const { demo, apiUrl } = stack;
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
    if (stack.consoleLink) {
      console.log(`Console (demo organisation, one use within 10 minutes): ${stack.consoleLink}`);
      console.log(`  another: npm run wpcrm -- console-link --org ${demo.orgId} [--read-only]`);
    }
    console.log('Try:');
    console.log(
      `  curl -s -X POST ${apiUrl}/token -H 'content-type: application/json' -d '${JSON.stringify({ clientId: owner.clientId, clientSecret: owner.clientSecret })}'`,
    );
  }
  console.log(`Ports: ${JSON.stringify(stack.info.ports)} (written to ${stack.dataDir}/stack.json)`);
  console.log(`${stack.label} ready at ${apiUrl}`);
}

/** Exits with a one-line reason for the errors a user can fix (configuration, a port in use). */
export function explainStartFailure(error: unknown, isConfigError: (error: unknown) => boolean): never {
  if (isConfigError(error)) {
    console.error((error as Error).message);
  } else if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    const port = (error as { port?: number }).port;
    console.error(
      `port ${port} is in use; stop what holds it or choose other ports (PORT, WPCRM_DYNAMODB_PORT, WPCRM_S3_PORT, WPCRM_SIMULATOR_PORT; 0 picks a free one)`,
    );
  } else {
    console.error('the stack failed to start:', error);
  }
  process.exit(1);
}

/** Closes the stack on SIGINT / SIGTERM, once, then exits. */
export function closeOnSignals(close: () => Promise<void>): void {
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
