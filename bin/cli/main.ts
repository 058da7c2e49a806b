import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '#shared/config/env';
import { DomainError } from '#shared/errors';
import type { Command } from './command.ts';
import { COMMANDS as CORE_COMMANDS } from './commands.ts';
import { CONSOLE_COMMANDS } from './console.ts';
import { CliError, invalid } from './errors.ts';
import { OPS_COMMANDS } from './ops.ts';
import { SCHEDULE_COMMANDS } from './schedules.ts';
import { deployedTarget, localTarget, type Target } from './target.ts';

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

const COMMANDS: Record<string, Command> = {
  ...CORE_COMMANDS,
  ...OPS_COMMANDS,
  ...SCHEDULE_COMMANDS,
  ...CONSOLE_COMMANDS,
};

const stdio: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/**
 * `wpcrm <noun> <verb> [--flag value …] [--stack <name>]` (CONTRACT §10): one JSON line on stdout, or one
 * `{"error":{"code","message"}}` line on stderr. Returns the exit status: 1 for bad input and domain errors,
 * 2 when no stack runs.
 */
export async function main(argv: string[], io: Io = stdio, env = process.env): Promise<number> {
  let target: Target | undefined;
  try {
    // `<noun> <verb>`, or one word (`status`).
    const words = !COMMANDS[argv.slice(0, 2).join(' ')] && COMMANDS[argv[0] ?? ''] ? 1 : 2;
    const name = argv.slice(0, words).join(' ');
    const command = COMMANDS[name];
    const wantsHelp = argv.includes('--help') || argv.includes('-h');
    if (argv.length === 0 || argv[0] === 'help' || (wantsHelp && !command)) {
      io.out(help());
      return 0;
    }
    if (!command) throw invalid(`unknown command "${name}"; run wpcrm --help`);
    if (wantsHelp) {
      io.out(`Usage: ${usage(name, command)}\n  ${command.summary}`);
      return 0;
    }
    const { stack, ...flags } = parseFlags(command, argv.slice(words));
    const connect = async () => {
      target = stack ? await deployedTarget(stack) : await localTarget(loadConfig(env), env);
      return target;
    };
    io.out(JSON.stringify(await command.run(flags, connect, io)));
    return 0;
  } catch (error) {
    const { code, message, exitCode } = describe(error);
    if (error instanceof CliError && error.lines) for (const line of error.lines) io.err(JSON.stringify(line));
    else io.err(JSON.stringify({ error: { code, message } }));
    return exitCode;
  } finally {
    target?.db.destroy();
  }
}

function parseFlags(command: Command, args: string[]): Record<string, string | undefined> {
  const options = Object.fromEntries(
    Object.entries(command.flags).map(([flag, spec]) => [
      flag,
      { type: spec.boolean ? ('boolean' as const) : ('string' as const) },
    ]),
  );
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args, options: { ...options, stack: { type: 'string' } }, strict: true }));
  } catch (error) {
    // Node's messages name the flag; their first sentence is enough and never echoes a flag's value.
    throw invalid((error as Error).message.split(/\.\s/)[0]!);
  }
  for (const [flag, value] of Object.entries(values)) {
    if (typeof value === 'string' && value.trim() === '') throw invalid(`--${flag} must not be empty`);
  }
  for (const [flag, spec] of Object.entries(command.flags)) {
    if (spec.required && values[flag] === undefined) throw invalid(`--${flag} is required`);
  }
  // A switch (`--read-only`) arrives as 'true'.
  return Object.fromEntries(
    Object.entries(values).map(([flag, value]) => [flag, value === true ? 'true' : value]),
  ) as Record<string, string | undefined>;
}

function describe(error: unknown): { code: string; message: string; exitCode: number } {
  if (error instanceof CliError) return error;
  if (error instanceof DomainError) return { code: error.code, message: error.message, exitCode: 1 };
  if (error instanceof ConfigError) return { code: 'VALIDATION_FAILED', message: error.message, exitCode: 1 };
  // SDK messages may quote request details; the error's name is enough to look it up.
  return { code: 'INTERNAL', message: `unexpected error (${(error as Error)?.name ?? 'unknown'})`, exitCode: 1 };
}

const usage = (name: string, command: Command) =>
  [
    `wpcrm ${name}`,
    ...Object.entries(command.flags).map(([flag, spec]) =>
      spec.required ? `--${flag} ${spec.value}` : `[--${flag} ${spec.value}]`,
    ),
    '[--stack <name>]',
  ].join(' ');

function help(): string {
  return [
    'Usage: wpcrm <command> [flags]',
    '',
    ...Object.entries(COMMANDS).flatMap(([name, command]) => [`  ${usage(name, command)}`, `      ${command.summary}`]),
    '',
    'Targets the running local stack (npm start): port WPCRM_DYNAMODB_PORT, else $WPCRM_DATA_DIR/stack.json',
    '(WPCRM_DATA_DIR defaults to .wpcrm). --stack <name> targets a deployed CloudFormation stack through its',
    'TableName output, with the default AWS credentials and region.',
    'Prints one JSON line on stdout. Errors: {"error":{"code","message"}} on stderr; exit 1 for invalid input,',
    '2 (STACK_NOT_RUNNING) when no stack runs.',
  ].join('\n');
}
