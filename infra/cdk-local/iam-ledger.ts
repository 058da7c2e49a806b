/** `WPCRM_IAM`: enforce (deny what the role does not allow), report (allow, but record), off. */
export type IamMode = 'enforce' | 'report' | 'off';

export interface IamReport {
  functions: Record<string, { denied: { action: string; resource: string; count: number }[]; unused: string[] }>;
}

interface Entry {
  granted: string[];
  used: Set<string>;
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
    this.#entries.set(principal, { granted, used: new Set(), denied: new Map() });
  }

  used(principal: string, grants: readonly string[]): void {
    const entry = this.#entry(principal);
    for (const grant of grants) entry.used.add(grant);
  }

  denied(principal: string, action: string, resource: string): void {
    const entry = this.#entry(principal);
    const key = `${action} ${resource}`;
    const record = entry.denied.get(key) ?? { action, resource, count: 0 };
    record.count += 1;
    entry.denied.set(key, record);
  }

  /** Calls denied so far, over every principal. */
  get deniedCount(): number {
    let count = 0;
    for (const entry of this.#entries.values()) for (const record of entry.denied.values()) count += record.count;
    return count;
  }

  report(): IamReport {
    const functions: IamReport['functions'] = {};
    for (const [principal, entry] of [...this.#entries].sort(([a], [b]) => (a < b ? -1 : 1))) {
      functions[principal] = {
        denied: [...entry.denied.values()],
        unused: entry.granted.filter((grant) => !entry.used.has(grant)),
      };
    }
    return { functions };
  }

  #entry(principal: string): Entry {
    let entry = this.#entries.get(principal);
    if (!entry) {
      entry = { granted: [], used: new Set(), denied: new Map() };
      this.#entries.set(principal, entry);
    }
    return entry;
  }
}
