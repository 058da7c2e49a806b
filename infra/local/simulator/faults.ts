import { GraphFailure } from './meta.ts';
import { FAULT_MODES, type FaultSpec, SimulatorError } from './types.ts';

type Armed = FaultSpec & { pattern?: RegExp; remaining: number };

/** Scripted transport faults, each for the next `times` matching Graph calls. */
export class FaultList {
  #faults: Armed[] = [];

  add(fault: FaultSpec): void {
    if (!FAULT_MODES.includes(fault?.mode)) throw new SimulatorError(400, `mode must be one of ${FAULT_MODES}`);
    let pattern: RegExp | undefined;
    try {
      pattern = fault.path ? new RegExp(fault.path) : undefined;
    } catch {
      throw new SimulatorError(400, `path is not a valid regular expression: ${fault.path}`);
    }
    this.#faults.push({ ...fault, pattern, remaining: Math.max(1, Math.floor(fault.times ?? 1)) });
  }

  /** The first fault matching the call, counted down (and dropped once used up). */
  take(method: string, path: string, body: unknown): Armed | undefined {
    const index = this.#faults.findIndex(
      (fault) =>
        (!fault.method || fault.method.toUpperCase() === method) &&
        (!fault.pattern || fault.pattern.test(path)) &&
        (fault.to === undefined || (body as { to?: unknown } | undefined)?.to === fault.to),
    );
    const fault = this.#faults[index];
    if (!fault) return undefined;
    if (--fault.remaining <= 0) this.#faults.splice(index, 1);
    return fault;
  }

  list(): (FaultSpec & { remaining: number })[] {
    return this.#faults.map(({ pattern: _pattern, ...fault }) => fault);
  }

  clear(): void {
    this.#faults.length = 0;
  }
}

/** The faults that answer without doing anything throw here; the others are the dispatcher's. */
export function throwTransportFault(fault: FaultSpec): void {
  const headers: Record<string, string> =
    fault.retryAfterSeconds !== undefined ? { 'retry-after': String(fault.retryAfterSeconds) } : {};
  if (fault.mode === 'http500') throw new GraphFailure(500, 2, { message: 'Service temporarily unavailable' });
  if (fault.mode === 'http429') throw new GraphFailure(429, 130429, { headers });
  if (fault.mode === 'code131208') throw new GraphFailure(429, 131208, { headers });
  // The (business, consumer) pair rate limit: Meta answers it as an ordinary 400 error.
  if (fault.mode === 'code131056') throw new GraphFailure(400, 131056, { headers });
}
