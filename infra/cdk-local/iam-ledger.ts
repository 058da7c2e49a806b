/** `WPCRM_IAM`: enforce (deny what the role does not allow), report (allow, but record), off. */
export type IamMode = 'enforce' | 'report' | 'off';

export interface IamReport {
  /**
   * By principal: a function's own role (its logical id) and each role it assumed (`<logical id>@<role>`: an
   * organisation's session of the tenant-access role, CONTRACT §25), what was denied, used and never used; and how many
   * sessions a function's role assumed.
   */
  functions: Record<
    string,
    {
      denied: { action: string; resource: string; count: number }[];
      used: string[];
      unused: string[];
      assumedSessions?: number;
    }
  >;
  /** Calls of probe sessions (GET /_local/assume-role), by `probe:<logical id>`: what a test asked a role to do. */
  probes: Record<string, { allowed: string[]; denied: { action: string; resource: string; count: number }[] }>;
}

/** A probe session's ledger id: `probe:<logical id>` (never a function's own). */
export const PROBE_PREFIX = 'probe:';

interface Entry {
  granted: string[];
  used: Set<string>;
  assumed: number;
  denied: Map<string, { action: string; resource: string; count: number }>;
}

/**
 * What each function's role was asked for: calls denied (with counts) and granted `<action> <resource>` pairs never
 * used, the report of CONTRACT §14 (`GET /_local/iam`, `iam-report.json`).
 */
export class IamLedger {
  #entries = new Map<string, Entry>();

  constructor(readonly mode: IamMode) {}

  /** Declares a principal (a function's logical id, or a service acting for a resource) and its granted pairs. */
  register(principal: string, granted: string[]): void {
    this.#entries.set(principal, { granted, used: new Set(), denied: new Map(), assumed: 0 });
  }

  /** {@link register}, unless the principal is known already (a role session assumed again keeps its record). */
  declare(principal: string, granted: string[]): void {
    if (!this.#entries.has(principal)) this.register(principal, granted);
  }

  used(principal: string, grants: readonly string[]): void {
    const entry = this.#entry(principal);
    for (const grant of grants) entry.used.add(grant);
  }

  /** The principal assumed a role (a session issued to it by STS). */
  assumed(principal: string): void {
    this.#entry(principal).assumed += 1;
  }

  denied(principal: string, action: string, resource: string): void {
    const entry = this.#entry(principal);
    const key = `${action} ${resource}`;
    const record = entry.denied.get(key) ?? { action, resource, count: 0 };
    record.count += 1;
    entry.denied.set(key, record);
  }

  /** Calls denied so far, over every principal but the probes (whose denials a test asked for). */
  get deniedCount(): number {
    let count = 0;
    for (const [principal, entry] of this.#entries) {
      if (principal.startsWith(PROBE_PREFIX)) continue;
      for (const record of entry.denied.values()) count += record.count;
    }
    return count;
  }

  report(): IamReport {
    const functions: IamReport['functions'] = {};
    const probes: IamReport['probes'] = {};
    for (const [principal, entry] of [...this.#entries].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (principal.startsWith(PROBE_PREFIX)) {
        probes[principal] = { allowed: [...entry.used].sort(), denied: [...entry.denied.values()] };
        continue;
      }
      functions[principal] = {
        denied: [...entry.denied.values()],
        used: [...entry.used].sort(),
        unused: entry.granted.filter((grant) => !entry.used.has(grant)),
        ...(entry.assumed > 0 ? { assumedSessions: entry.assumed } : {}),
      };
    }
    return { functions, probes };
  }

  #entry(principal: string): Entry {
    let entry = this.#entries.get(principal);
    if (!entry) {
      entry = { granted: [], used: new Set(), denied: new Map(), assumed: 0 };
      this.#entries.set(principal, entry);
    }
    return entry;
  }
}
