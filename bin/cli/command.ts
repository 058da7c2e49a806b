import type { Target } from './target.ts';

/** A `--flag <value>` of a command; every value is a string, checked by the command itself. */
export interface Flag {
  value: string;
  required?: true;
  /** A switch that takes no value (`--read-only`); it reaches `run` as 'true'. */
  boolean?: true;
}

/**
 * One `wpcrm <noun> <verb>`. `run` validates its flags before it calls `connect`, so bad input fails with exit 1
 * even when no stack runs. Required flags arrive present and non-empty.
 */
export interface Command {
  summary: string;
  flags: Record<string, Flag>;
  run(
    flags: Record<string, string | undefined>,
    connect: () => Promise<Target>,
    io: { err(line: string): void },
  ): Promise<unknown>;
}

/** A command's flag values as `run` receives them: a required flag's is a string. */
type Values<F> = { [K in keyof F]: F[K] extends { required: true } ? string : string | undefined };

/** A command whose `run` sees its own flags typed (Values). */
export const command = <const F extends Record<string, Flag>>(definition: {
  summary: string;
  flags: F;
  run(flags: Values<F>, connect: () => Promise<Target>, io: { err(line: string): void }): Promise<unknown>;
}): Command => definition as Command;
