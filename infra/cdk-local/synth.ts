import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '#infra/aws/constructs/app-function';
import { SETTINGS } from '#shared/config/settings';
import { flattenTemplate, type NestedTemplate } from './flatten.ts';
import type { Template } from './template.ts';

/** What the synthesized template and its bundles depend on. */
const INPUT_DIRS = ['functions', 'shared', 'infra/aws'];
const INPUT_FILES = ['package.json', 'package-lock.json', 'cdk.json', 'tsconfig.json', 'infra/cdk-local/synth-app.ts'];
const HASH_FILE = 'wpcrm-inputs.sha256';

export interface SynthOutput {
  outdir: string;
  stackName: string;
  template: Template;
  /** true when the previous output matched the sources and was reused. */
  reused: boolean;
}

/**
 * Synthesizes the CDK app for `stage` into `outdir` (bundling every function as `cdk synth` does), with `context` as
 * `-c` options (the settings a deployment is given: infra/aws/settings.ts), unless `outdir` already holds the output
 * of exactly these sources and options: a hash of every input file, the stage and the context decides.
 */
export async function synthesize(options: {
  outdir: string;
  stage: string;
  context?: Record<string, string>;
}): Promise<SynthOutput> {
  const stackName = `WpCrm-${options.stage}`;
  const context = JSON.stringify(options.context ?? {});
  const hash = `${await inputsHash()}:${options.stage}:${context}`;
  const hashFile = join(options.outdir, HASH_FILE);
  const reused = existsSync(hashFile) && (await readFile(hashFile, 'utf8')) === hash;
  if (!reused) {
    // Synthesize next to the target and swap, so that an interrupted synth never leaves a half-written output.
    const staging = `${options.outdir}.partial`;
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'infra/cdk-local/synth-app.ts'), staging, options.stage, context],
      {
        cwd: REPO_ROOT,
        // Without the settings' variables: what the template gets of them is `context`, and nothing of this process.
        env: { ...withoutSettings(process.env), CDK_DISABLE_VERSION_CHECK: '1', CDK_VALIDATION: 'false' },
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((error: Error & { stderr?: string; stdout?: string }) => {
      throw new Error(`cdk synth failed:\n${error.stderr || error.stdout || error.message}`);
    });
    await writeFile(join(staging, HASH_FILE), hash);
    await rm(options.outdir, { recursive: true, force: true });
    await rename(staging, options.outdir);
  }
  const root = await readTemplate(options.outdir, `${stackName}.template.json`);
  const template = flattenTemplate(root, await nestedTemplates(options.outdir, root));
  return { outdir: options.outdir, stackName, template, reused };
}

function withoutSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !(name in SETTINGS)));
}

const readTemplate = async (outdir: string, file: string) =>
  JSON.parse(await readFile(join(outdir, file), 'utf8')) as Template;

/**
 * The nested stacks of `template` as the synth wrote them: each `AWS::CloudFormation::Stack` names its template
 * file in its asset metadata, and its construct path (`…/<Concern>.NestedStack/<Concern>.NestedStackResource`)
 * gives the prefix of its resources in the flat template, the same one the infra tests use.
 */
async function nestedTemplates(outdir: string, template: Template): Promise<NestedTemplate[]> {
  const nested: NestedTemplate[] = [];
  for (const [resourceId, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::CloudFormation::Stack') continue;
    const file = resource.Metadata?.['aws:asset:path'];
    const path = String(resource.Metadata?.['aws:cdk:path'] ?? '');
    const prefix = /([^/]+)\.NestedStackResource$/.exec(path)?.[1];
    if (typeof file !== 'string' || !prefix) {
      throw new Error(`nested stack ${resourceId}: the synth wrote no template path or construct path for it`);
    }
    const child = await readTemplate(outdir, file);
    nested.push({ resourceId, prefix, template: child, nested: await nestedTemplates(outdir, child) });
  }
  return nested;
}

async function inputsHash(): Promise<string> {
  const hash = createHash('sha256');
  const files = [...INPUT_FILES.map((file) => join(REPO_ROOT, file))];
  for (const dir of INPUT_DIRS) files.push(...(await listFiles(join(REPO_ROOT, dir))));
  for (const file of files.sort()) {
    hash.update(relative(REPO_ROOT, file)).update('\0');
    hash.update(await readFile(file)).update('\0');
  }
  return hash.digest('hex');
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}
