import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DocumentedCommand,
  documentedSession,
  fencedBlocks,
  isRead,
  matchesShown,
  Shell,
} from '#test/support/doc-walkthrough';
import { eventually, useLocalStack } from '#test/support/local-stack';

const REPO_ROOT = new URL('../../', import.meta.url);
const page = (path: string) => readFileSync(new URL(path, REPO_ROOT), 'utf8');

/** The documented addresses the walkthroughs' commands name: the API, the simulator and the webhook receivers. */
const DOCUMENTED = {
  api: '127.0.0.1:3000',
  simulator: 'localhost:4580',
  receivers: ['127.0.0.1:9998', '127.0.0.1:9999'],
};

/** A loopback port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A terminal shows a CRLF line (the CSV's) as a line. */
const linesOf = (output: string) => (output === '' ? [] : output.split('\n').map((line) => line.replace(/\r$/, '')));

function expectShown(step: DocumentedCommand, output: string, status: number): void {
  const shown = `$ ${step.command}\n${step.output.join('\n')}\nprinted (exit ${status}):\n${output}`;
  const lines = linesOf(output);
  expect(status, shown).toBe(0);
  expect(lines.length, shown).toBe(step.output.length);
  for (const [index, expected] of step.output.entries())
    expect(matchesShown(expected, lines[index]!), shown).toBe(true);
}

// The documented walkthroughs typed into one shell as a reader types them, against the local stack: every command
// must succeed and print what the page shows (`…` for what changes from run to run). A command that only reads is run
// again while it fails or shows something else, as a reader polls; any other must succeed and show it at once. The README's walkthrough
// comes first, and the API guide's goes on in the same terminal.
describe('documented walkthroughs', () => {
  // A data dir of its own: the walkthrough reads the demo organisation from ./.wpcrm/demo.json.
  const home = mkdtempSync(join(tmpdir(), 'wpcrm-walkthrough-'));
  const api = useLocalStack({ WPCRM_DATA_DIR: join(home, '.wpcrm') });
  let shell: Shell;
  let receiver: ChildProcess | undefined;
  let received = '';
  let readmeDone = false;

  beforeAll(() => {
    shell = new Shell(home, process.env);
  });
  afterAll(async () => {
    await shell?.close();
    if (receiver && receiver.exitCode === null) {
      const exited = new Promise((resolve) => receiver!.once('exit', resolve));
      receiver.kill();
      await exited;
    }
    rmSync(home, { recursive: true, force: true });
  });

  /** Runs `session`, each documented address replaced by this stack's (in the commands and in what they print). */
  async function run(session: DocumentedCommand[], receiverPort?: number): Promise<void> {
    const here = (text: string) => {
      let replaced = text
        .replaceAll(DOCUMENTED.api, new URL(api.stack.apiUrl).host)
        .replaceAll(DOCUMENTED.simulator, `localhost:${api.stack.info.ports.simulator}`);
      for (const address of DOCUMENTED.receivers) replaced = replaced.replaceAll(address, `127.0.0.1:${receiverPort}`);
      return replaced;
    };
    for (const documented of session) {
      const step = { command: here(documented.command), output: documented.output.map(here) };
      const check = async () => {
        const { output, status } = await shell.run(step.command);
        expectShown(step, output, status);
      };
      await (isRead(documented.command) ? eventually(check, { timeoutMs: 20_000, intervalMs: 200 }) : check());
    }
  }

  it("runs the README's: token, group, poll, report, download", async () => {
    const session = documentedSession(page('README.md'), 'Walkthrough');
    const commands = session.map((step) => step.command).join('\n');
    expect(commands).toContain(`B=http://${DOCUMENTED.api}/api/wp-crm`);
    for (const path of ['$B/token', '$B/groups/$ORG', 'creation-status/$REQUEST', '$B/reports/$ORG', '/download']) {
      expect(commands, path).toContain(path);
    }

    await run(session);
    readmeDone = true;
  }, 120_000);

  it("runs the API guide's, in the README's terminal", async () => {
    expect(readmeDone, "the README's walkthrough ran first").toBe(true);
    const guide = page('docs/api-guide.md');
    const [receiverCommand] = fencedBlocks(guide, 'sh').filter((block) => block.includes('createServer'));
    const [receiverPrints] = fencedBlocks(guide, 'text');
    expect(receiverCommand, "the guide's webhook receiver").toBeDefined();
    expect(receiverPrints, 'what the guide shows the receiver print').toBeDefined();

    // The guide's receiver, started as its third terminal would, on a free port.
    const receiverPort = await freePort();
    const documentedPort = DOCUMENTED.receivers[0]!.split(':')[1]!;
    const started = spawn(
      'bash',
      ['-c', `exec ${receiverCommand!.replace(/^\$ /, '').trim()}`.replace(documentedPort, String(receiverPort))],
      {
        cwd: home,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    receiver = started;
    started.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      received += chunk;
    });
    await eventually(
      () =>
        new Promise<void>((resolve, reject) => {
          const socket = connect(receiverPort, '127.0.0.1', () => {
            socket.destroy();
            resolve();
          }).on('error', reject);
        }),
    );

    await run(documentedSession(guide, 'Walkthroughs'), receiverPort);
    await eventually(() => {
      for (const expected of linesOf(receiverPrints!.trimEnd())) {
        expect(
          linesOf(received).some((line) => matchesShown(expected, line)),
          `the receiver printed ${expected}; it printed:\n${received}`,
        ).toBe(true);
      }
    });
  }, 180_000);
});
