import { defineConfig } from 'vitest/config';

// The e2e target (docs/testing.md). Vite sets BASE_URL to its own base, '/', when the user did not set it.
if (/^https?:\/\//.test(process.env.BASE_URL ?? '')) process.env.E2E_BASE_URL ??= process.env.BASE_URL;

const env = {
  CDK_VALIDATION: 'false',
  CDK_DISABLE_VERSION_CHECK: '1',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  NODE_NO_WARNINGS: '1',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'SILENT',
  POWERTOOLS_DEV: 'false',
};

export default defineConfig({
  test: {
    environment: 'node',
    pool: 'forks',
    env,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        // Two files at a time (vitest's default on 2 cores is one): unit and infra files are CPU-bound and share
        // nothing (no ports, no state), so both cores are used.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], maxWorkers: 2 },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // Two files at a time (vitest's default on 2 cores is one): each file runs its own local stack on free
          // ports and its own organisations, and most of a file's time is waiting on queues, timers and processes.
          maxWorkers: 2,
          // Every exchange with the API is checked against openapi.json (CONTRACT §19).
          setupFiles: ['test/support/openapi-setup.ts'],
          globalSetup: ['test/support/openapi-global.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          maxWorkers: 2,
          // A test that synthesizes the whole app (about 55 functions bundled, CloudFormation validation on) takes
          // 10–30 s on two cores; the bound is a hang guard, not a speed target (speed lives in npm run bench).
          testTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // Two files at a time against the one deployment: its tests mostly wait (for start:cdk's function
          // processes, or for a minute-long cache), and each file works in organisations of its own.
          maxWorkers: 2,
          globalSetup: ['test/e2e/global-setup.ts'],
          setupFiles: ['test/support/openapi-setup.ts'],
          // Cold starts of the deployed functions' processes and the synth on a fresh clone take their time.
          testTimeout: 60_000,
          hookTimeout: 600_000,
        },
      },
      {
        extends: true,
        test: {
          // After the e2e suite, one file at a time: the noisy neighbour (CONTRACT §18: its latencies must not share the
          // machine with other files' flows) against the suite's deployment, and CONTRACT §25's fault switch on a
          // start:cdk stack of its own (the denials it provokes are its own, never the deployment's).
          name: 'e2e-isolation',
          include: ['test/e2e-isolation/**/*.test.ts'],
          maxWorkers: 1,
          globalSetup: ['test/e2e/global-setup.ts'],
          setupFiles: ['test/support/openapi-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 600_000,
        },
      },
      { extends: true, test: { name: 'browser', include: ['test/browser/**/*.test.ts'] } },
    ],
  },
});
