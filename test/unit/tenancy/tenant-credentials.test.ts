import { describe, expect, it } from 'vitest';
import { routedByOrganisation, scopedCredentials } from '#shared/adapters/aws/tenant-clients';
import { TenantAccessUnavailableError, TenantCredentials } from '#shared/adapters/aws/tenant-credentials';
import {
  actFor,
  actingFor,
  actingOrg,
  asService,
  forOrganisation,
  inTenantScope,
  refuseFaultSwitchOutsideTests,
  validFor,
} from '#shared/adapters/aws/tenant-scope';

const HOUR = 3_600_000;

function sts(now: () => number) {
  const calls: string[] = [];
  let failNext = false;
  return {
    calls,
    failOnce: () => {
      failNext = true;
    },
    assume: async (orgId: string) => {
      calls.push(orgId);
      if (failNext) {
        failNext = false;
        throw new Error('throttled');
      }
      return {
        accessKeyId: `AK-${orgId}-${calls.length}`,
        secretAccessKey: 's',
        sessionToken: 't',
        expiration: new Date(now() + HOUR),
      };
    },
  };
}

describe('an organisation’s credentials per container (CONTRACT §25)', () => {
  it('assumes once per organisation and shares the session between concurrent and later calls', async () => {
    let now = 0;
    const service = sts(() => now);
    const tenant = new TenantCredentials({ assume: service.assume, now: () => now });
    const [a, b] = await Promise.all([tenant.credentialsFor('org-a'), tenant.credentialsFor('org-a')]);
    now += 49 * 60_000;
    const later = await tenant.credentialsFor('org-a');
    expect([a.accessKeyId, b.accessKeyId, later.accessKeyId]).toEqual(['AK-org-a-1', 'AK-org-a-1', 'AK-org-a-1']);
    expect(service.calls).toEqual(['org-a']);
  });

  it('renews a session once 50 minutes old, so at most one AssumeRole per organisation per 50 minutes', async () => {
    let now = 0;
    const service = sts(() => now);
    const tenant = new TenantCredentials({ assume: service.assume, now: () => now });
    for (let minute = 0; minute <= 120; minute += 1) {
      now = minute * 60_000;
      await tenant.credentialsFor('org-a');
    }
    expect(service.calls).toHaveLength(3);
  });

  it('renews early when the caller needs the credentials to outlive what is left (a pre-signed URL)', async () => {
    let now = 0;
    const service = sts(() => now);
    const tenant = new TenantCredentials({ assume: service.assume, now: () => now });
    await tenant.credentialsFor('org-a');
    now = 46 * 60_000;
    expect((await tenant.credentialsFor('org-a', 300)).accessKeyId).toBe('AK-org-a-1');
    const signing = await tenant.credentialsFor('org-a', 900);
    expect(signing.accessKeyId).toBe('AK-org-a-2');
    expect(signing.expiration!.getTime() - now).toBeGreaterThanOrEqual(900_000);
  });

  it('keeps at most maxOrganisations sessions, dropping the least recently used', async () => {
    const service = sts(() => 0);
    const tenant = new TenantCredentials({ assume: service.assume, now: () => 0, maxOrganisations: 2 });
    await tenant.credentialsFor('a');
    await tenant.credentialsFor('b');
    await tenant.credentialsFor('a');
    await tenant.credentialsFor('c');
    await tenant.credentialsFor('a');
    await tenant.credentialsFor('b');
    expect(service.calls).toEqual(['a', 'b', 'c', 'b']);
  });

  it('fails a call whose AssumeRole failed as retryable (503) and tries again on the next, never keeping the failure', async () => {
    const service = sts(() => 0);
    const tenant = new TenantCredentials({ assume: service.assume, now: () => 0 });
    service.failOnce();
    const failure = await tenant.credentialsFor('a').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TenantAccessUnavailableError);
    expect(failure).toMatchObject({ code: 'NETWORK_UNAVAILABLE', status: 503 });
    expect((await tenant.credentialsFor('a')).accessKeyId).toBe('AK-a-2');
  });
});

describe('the organisation a call is made for', () => {
  it('is set by the request once proven, by each record for itself, and set aside for global partitions', async () => {
    expect(actingOrg()).toBeUndefined();
    await inTenantScope(async () => {
      expect(actingOrg()).toBeUndefined();
      actFor('org-a');
      await Promise.resolve();
      expect(actingOrg()).toBe('org-a');
      expect(asService(() => actingOrg())).toBeUndefined();
      expect(validFor(60, () => actingOrg())).toBe('org-a');
    });
    const seen = await Promise.all(
      ['x', 'y', 'z'].map((orgId) =>
        actingFor(orgId, async () => {
          await new Promise((resolve) => setTimeout(resolve, orgId === 'x' ? 5 : 0));
          return actingOrg();
        }),
      ),
    );
    expect(seen).toEqual(['x', 'y', 'z']);
    expect(forOrganisation('x', (orgId) => orgId)).toBe('x');
  });

  it('routes each command to its organisation’s client, and outside one to the function’s own', async () => {
    const sent: string[] = [];
    const client = (name: string) => ({ send: async (command: string) => sent.push(`${name}:${command}`) });
    const tenant = new TenantCredentials({ assume: sts(() => 0).assume, now: () => 0 });
    const made: string[] = [];
    const routed = routedByOrganisation(client('own'), tenant, (credentials) => {
      const name = `tenant${made.length + 1}`;
      made.push(name);
      void credentials;
      return client(name);
    });
    await routed.send('a');
    await actingFor('org-a', () => routed.send('b'));
    await actingFor('org-b', () => routed.send('c'));
    await actingFor('org-a', () => asService(() => routed.send('d')));
    await actingFor('org-a', () => routed.send('e'));
    expect(sent).toEqual(['own:a', 'tenant1:b', 'tenant2:c', 'own:d', 'tenant1:e']);
  });

  it('signs with the organisation’s credentials inside its scope, valid as long as asked', async () => {
    const tenant = new TenantCredentials({ assume: sts(() => 0).assume, now: () => 0 });
    const provider = scopedCredentials(async () => ({ accessKeyId: 'OWN', secretAccessKey: 's' }), tenant);
    expect((await provider()).accessKeyId).toBe('OWN');
    expect((await actingFor('org-a', () => validFor(900, () => provider()))).accessKeyId).toBe('AK-org-a-1');
  });

  it('refuses the fault switch outside the tests', () => {
    expect(() => refuseFaultSwitchOutsideTests({ WPCRM_FAULT_FILE: '/tmp/fault.json' })).toThrow(/test-only/);
    expect(() =>
      refuseFaultSwitchOutsideTests({ WPCRM_FAULT_FILE: '/tmp/fault.json', WPCRM_TEST_FAULTS: 'allow' }),
    ).not.toThrow();
  });
});
