import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';

/**
 * Whom a function acts for (CONTRACT §25). Every AWS call made inside an organisation's scope is signed with that
 * organisation's credentials (tenant-credentials.ts); a call outside any scope, or inside `asService`, with the
 * function's own role. The scope is set where the organisation becomes known and proven: an HTTP request's once its
 * token is verified and its path's organisation matched, a queue record's from its body, a sweeper's due item from its
 * key. A store never chooses credentials from the ids it is handed: that is what lets IAM refuse a store that is handed
 * another organisation's id (the fault switch below).
 */
interface Scope {
  orgId?: string;
  /** A global partition's call inside an organisation's scope: the function's own role. */
  service?: boolean;
  /** Credentials signing a URL must outlive it (a report's download URL). */
  validForSeconds?: number;
}

const scopes = new AsyncLocalStorage<Scope>();

/** Runs `fn` in a scope whose organisation is set later, by `actFor` (an HTTP request's, after its checks). */
export function inTenantScope<R>(fn: () => R): R {
  return scopes.run({}, fn);
}

/** The organisation of the current scope (opened by `inTenantScope`) becomes `orgId`. */
export function actFor(orgId: string): void {
  const scope = scopes.getStore();
  if (scope) scope.orgId = orgId;
}

/** Runs `fn` acting for `orgId`: a worker's record, a sweeper's item. */
export function actingFor<R>(orgId: string, fn: () => R): R {
  return scopes.run({ orgId }, fn);
}

/** Runs `fn` with the function's own role: a global partition (Meta's links, the due lists, the app secret). */
export function asService<R>(fn: () => R): R {
  const scope = scopes.getStore();
  return scope?.orgId ? scopes.run({ ...scope, service: true }, fn) : fn();
}

/** Runs `fn` with credentials that stay valid for at least `seconds` (a pre-signed URL's lifetime). */
export function validFor<R>(seconds: number, fn: () => R): R {
  return scopes.run({ ...scopes.getStore(), validForSeconds: seconds }, fn);
}

/** The organisation whose credentials the next AWS call uses, or undefined for the function's own. */
export function actingOrg(): string | undefined {
  const scope = scopes.getStore();
  return scope?.service ? undefined : scope?.orgId;
}

export function requiredValiditySeconds(): number {
  return scopes.getStore()?.validForSeconds ?? 0;
}

/**
 * The test-only fault switch (CONTRACT §25): while `WPCRM_FAULT_FILE` names a file holding
 * `{"functions": ["<id>", …], "foreignOrg": "<orgId>"}`, each function named there (`WPCRM_FUNCTION`) hands its use
 * case and stores `foreignOrg` in place of the organisation it acts for, and keeps acting with the true one's
 * credentials: IAM, not the code, must refuse what follows. Only start:cdk under the tests sets it, with
 * `WPCRM_TEST_FAULTS=allow`; anywhere else a function refuses to start with it (no deployment sets either: an infra
 * test checks every template).
 */
export function foreignOrgFor(orgId: string): string {
  const file = process.env.WPCRM_FAULT_FILE;
  if (!file) return orgId;
  refuseFaultSwitchOutsideTests();
  let fault: { functions?: string[]; foreignOrg?: string };
  try {
    fault = JSON.parse(readFileSync(file, 'utf8')) as typeof fault;
  } catch {
    return orgId;
  }
  const faulty = fault.functions?.includes(process.env.WPCRM_FUNCTION ?? '') && fault.foreignOrg;
  return faulty ? fault.foreignOrg! : orgId;
}

/** Refuses to start a function that carries the fault switch outside the tests. */
export function refuseFaultSwitchOutsideTests(env: NodeJS.ProcessEnv = process.env): void {
  if (env.WPCRM_FAULT_FILE && env.WPCRM_TEST_FAULTS !== 'allow') {
    throw new Error('WPCRM_FAULT_FILE is a test-only switch: refused outside the tests (WPCRM_TEST_FAULTS)');
  }
}

/**
 * Runs `fn` acting for `orgId` (its credentials), handing it the organisation id its work uses: the same, unless the
 * test-only fault switch names another (a sweeper's item, a worker's job).
 */
export function forOrganisation<R>(orgId: string, fn: (orgId: string) => R): R {
  return actingFor(orgId, () => fn(foreignOrgFor(orgId)));
}
