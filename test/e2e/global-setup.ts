import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { CdkStack } from '#infra/cdk-local/stack';
import { clearExchanges, summariseExchanges } from '#test/support/openapi-recorder';
import { stackEnv } from '#test/support/stack-harness';

let stack: CdkStack | undefined;
let dataDir: string | undefined;

/**
 * Without BASE_URL (or E2E_BASE_URL), the e2e suite runs against the synthesized template (`npm run start:cdk`) with IAM enforced,
 * on free ports and a throwaway data dir; afterwards every function's calls must have been allowed.
 */
export async function setup(project: TestProject) {
  clearExchanges('test/e2e/');
  // BASE_URL as the user set it (vitest.config.ts keeps it; Vite replaces BASE_URL itself with '/').
  const external = process.env.E2E_BASE_URL;
  if (external) {
    const dir = process.env.E2E_DATA_DIR ?? process.env.WPCRM_DATA_DIR ?? '.wpcrm';
    return project.provide('e2eTarget', { baseUrl: external, dataDir: dir });
  }
  dataDir = await mkdtemp(join(tmpdir(), 'wpcrm-e2e-'));
  const { startCdkStack } = await import('#infra/cdk-local/stack');
  stack = await startCdkStack({
    env: stackEnv({ WPCRM_DATA_DIR: dataDir, WPCRM_SWEEP_INTERVAL_MS: '500', WPCRM_IAM: 'enforce' }),
  });
  project.provide('e2eTarget', { baseUrl: stack.apiUrl, dataDir });
}

export async function teardown() {
  summariseExchanges('test/e2e/', 'e2e');
  if (!stack) return;
  const report = stack.iamReport();
  await stack.close();
  const denied = Object.entries(report.functions).filter(([, entry]) => entry.denied.length > 0);
  // Kept as a CI artifact: what each function was denied and which grants it never used.
  await mkdir('test-results', { recursive: true });
  await writeFile(join('test-results', 'iam-report.json'), `${JSON.stringify(report, null, 2)}\n`);
  await rm(dataDir!, { recursive: true, force: true });
  if (denied.length > 0) {
    throw new Error(`IAM denied calls under start:cdk:\n${JSON.stringify(Object.fromEntries(denied), null, 2)}`);
  }
}
