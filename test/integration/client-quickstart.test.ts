import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useLocalStack } from '#test/support/local-stack';

const run = promisify(execFile);

// The quickstart of clients/typescript/README.md, run as an integrator runs it, against the local stack (§19).
describe('@wp-crm/client quickstart', () => {
  const api = useLocalStack();

  it('gets a token, creates a group, polls it, requests a report and fetches its download URL', async () => {
    const admin = api.stack.demo!.credentials.CRM_ADMIN;

    const { stdout } = await run(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', 'clients/typescript/examples/quickstart.ts'],
      {
        env: {
          ...process.env,
          WPCRM_BASE_URL: new URL(api.stack.apiUrl).origin,
          WPCRM_CLIENT_ID: admin.clientId,
          WPCRM_CLIENT_SECRET: admin.clientSecret,
        },
        timeout: 120_000,
      },
    );

    expect(stdout).toMatch(/^requested grq_\w+ status at \/api\/wp-crm\/groups\/[\w-]+\/creation-status\/grq_\w+$/m);
    expect(stdout).toMatch(/^group created cht_\w+ https:\/\/chat\.whatsapp\.com\/\w+$/m);
    expect(stdout).toMatch(/^report rpt_\w+ COMPLETED \d+ rows$/m);
    expect(stdout).toMatch(/^download http\S+ until \d{4}-\d\d-\d\dT/m);
  }, 180_000);
});
