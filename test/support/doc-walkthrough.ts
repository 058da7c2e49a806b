import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

/** One `$ command` of a documented console session, with the output the documentation shows for it. */
export interface DocumentedCommand {
  /** The command as a shell reads it (continuation lines included, without the `$ ` prompt). */
  command: string;
  /** The lines shown under it; `…` stands for anything that changes from run to run. */
  output: string[];
}

/**
 * The `console` blocks of one section of a Markdown page (from the heading `## <title>` to the next heading of the
 * same or a higher level), as the commands a reader types and the output shown for each. Other blocks (`sh` for a
 * command of another terminal, `text` for what it prints) are left to the caller: `fencedBlocks`.
 */
export function documentedSession(markdown: string, title: string): DocumentedCommand[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^#{2,3} /.test(line) && line.replace(/^#+ /, '') === title);
  if (start < 0) throw new Error(`no section "${title}"`);
  const level = /^#+/.exec(lines[start]!)![0].length;
  const commands: DocumentedCommand[] = [];
  let fence: string | undefined;
  let current: DocumentedCommand | undefined;
  let continued = false;
  for (const line of lines.slice(start + 1)) {
    if (fence === undefined && new RegExp(`^#{1,${level}} `).test(line)) break;
    if (line.startsWith('```')) {
      fence = fence === undefined ? line.slice(3) : undefined;
      current = undefined;
      continued = false;
      continue;
    }
    if (fence !== 'console') continue;
    if (continued && current) {
      current.command += `\n${line}`;
    } else if (line.startsWith('$ ')) {
      current = { command: line.slice(2), output: [] };
      commands.push(current);
    } else if (current) current.output.push(line);
    else throw new Error(`"${title}": a console block shows output before any command: ${line}`);
    continued = line.endsWith('\\');
  }
  return commands;
}

/** The body of every block fenced as `language` in `markdown`. */
export function fencedBlocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp(`^\`\`\`${language}\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((match) => match[1]!);
}

/** Whether `actual` is `expected` with each `…` standing for any text (possibly none). */
export function matchesShown(expected: string, actual: string): boolean {
  const pattern = expected
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`).test(actual);
}

/**
 * A command that only reads (`curl …` or `NAME=$(curl …)` without a method that writes): safe to run again while an
 * asynchronous job finishes, as a reader polls.
 */
export function isRead(command: string): boolean {
  return /^(\w+=\$\()?curl /.test(command) && !/ -X (POST|PUT|PATCH|DELETE)\b/.test(command);
}

/**
 * One bash process that keeps its variables and functions from command to command, as a reader's terminal does.
 * Standard error is merged into the output, as a terminal shows it.
 */
export class Shell {
  readonly #bash: ChildProcessWithoutNullStreams;
  #buffer = '';
  #waiting: (() => void) | undefined;
  #count = 0;

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.#bash = spawn('bash', ['--noprofile', '--norc'], { cwd, env, stdio: 'pipe' });
    this.#bash.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.#buffer += chunk;
      this.#waiting?.();
    });
    this.#bash.stdin.write('exec 2>&1\n');
  }

  /** Runs `command` (stdin closed) and answers what it printed, without trailing newlines, and its exit status. */
  run(command: string, timeoutMs = 30_000): Promise<{ output: string; status: number }> {
    const marker = `__wpcrm_done_${++this.#count}__`;
    const done = new RegExp(`\\n${marker} (\\d+)\\n`);
    this.#bash.stdin.write(`{ ${command}\n} < /dev/null\nprintf '\\n${marker} %s\\n' $?\n`);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting = undefined;
        reject(new Error(`no end of \`${command}\` within ${timeoutMs} ms; printed so far: ${this.#buffer}`));
      }, timeoutMs);
      this.#waiting = () => {
        const found = done.exec(this.#buffer);
        if (!found) return;
        clearTimeout(timer);
        this.#waiting = undefined;
        const output = this.#buffer.slice(0, found.index).replace(/\n+$/, '');
        this.#buffer = this.#buffer.slice(found.index + found[0].length);
        resolve({ output, status: Number(found[1]) });
      };
      this.#waiting();
    });
  }

  /** Ends the shell and waits for it to exit. */
  close(): Promise<void> {
    if (this.#bash.exitCode !== null || this.#bash.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.#bash.once('exit', () => resolve());
      this.#bash.stdin.end('exit\n');
    });
  }
}
