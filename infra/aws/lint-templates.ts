import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App } from 'aws-cdk-lib';
import { buildApp } from './build-app.ts';
import { CONFIGURATIONS } from './configurations.ts';
import { REPO_ROOT } from './constructs/function-bundle.ts';
import { HEADROOM, LIMITS } from './limits.ts';
import { parseStage } from './stage.ts';

/**
 * `npm run lint:cfn` (CONTRACT §22, run by .ci/run): synthesizes every documented stage and option — dev, dev with
 * the edge, prod with the edge, prod with the edge and every optional setting — with CDK's built-in CloudFormation validation on (a finding fails the synth, as
 * `cdk deploy` would), then runs AWS's cfn-lint over every template written, nested stacks included. Bundling is
 * skipped: assets change only their hashes, not the templates' shape. Exits 1 on any error; every warning cfn-lint
 * may print is either fixed or in CFN_LINT_IGNORED with its reason.
 */

/** cfn-lint rules not applied, each with the reason (docs/testing.md, lint:cfn). */
export const CFN_LINT_IGNORED: Record<string, string> = {
  W3005:
    'Every function depends on its execution role twice: through the Role GetAtt and through the DependsOn that ' +
    'CDK adds for the role and its policy together, so that no function is created before its permissions. The ' +
    'DependsOn on the role is redundant, not wrong; the one on the policy is needed.',
};

const run = promisify(execFile);

/** Per template: resources against the 60 % budget, and how many function-backed routes or workers still fit. */
function printHeadroom(outdir: string, files: string[]): void {
  const budget = Math.floor(LIMITS.resources * HEADROOM);
  console.log(
    '| Template | Resources (budget 300) | Outputs | Parameters | KB | Room: routes (9 each) | Room: workers (13 each) |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const file of files.sort()) {
    const text = readFileSync(join(outdir, file), 'utf8');
    const template = JSON.parse(text) as { Resources: object; Outputs?: object; Parameters?: object };
    const resources = Object.keys(template.Resources).length;
    const name = file
      .replace(/\.(nested\.)?template\.json$/, '')
      .replace(/^WpCrmprod(.*?)[0-9A-F]{8}$/, 'WpCrm-prod/$1');
    console.log(
      `| ${name} | ${resources} | ${Object.keys(template.Outputs ?? {}).length} | ${Object.keys(template.Parameters ?? {}).length} | ${Math.round(Buffer.byteLength(text) / 1024)} | ${Math.floor((budget - resources) / 9)} | ${Math.floor((budget - resources) / 13)} |`,
    );
  }
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'wpcrm-lint-cfn-'));
  const { context } = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  // The validator is on unless CDK_VALIDATION=false, which the test runner sets for speed.
  delete process.env.CDK_VALIDATION;
  const templates: string[] = [];
  try {
    for (const configuration of CONFIGURATIONS) {
      const outdir = join(root, configuration.name);
      const started = Date.now();
      const app = new App({
        outdir,
        context: { ...context, ...configuration.context, 'aws:cdk:bundling-stacks': [] },
        builtinCloudFormationValidation: true,
      });
      buildApp(app, parseStage(configuration.stage));
      app.synth();
      const written = readdirSync(outdir).filter((file) => file.endsWith('.template.json'));
      templates.push(...written.map((file) => join(outdir, file)));
      if (configuration.name === 'prod-edge') printHeadroom(outdir, written);
      console.log(
        `${configuration.name}: synthesized with CloudFormation validation, ${written.length} templates (${Date.now() - started} ms)`,
      );
    }

    const started = Date.now();
    const ignore = Object.keys(CFN_LINT_IGNORED);
    const args = [
      '--format',
      'parseable',
      ...(ignore.length > 0 ? ['--ignore-checks', ...ignore] : []),
      '--',
      ...templates,
    ];
    const { stdout, code } = await run('cfn-lint', args, { maxBuffer: 64 * 1024 * 1024 }).then(
      (result) => ({ ...result, code: 0 }),
      (error: Error & { stdout?: string; code?: number | string }) => {
        if (error.code === 'ENOENT') {
          throw new Error("cfn-lint is not installed: `pip install cfn-lint` (AWS's CloudFormation linter)");
        }
        return { stdout: error.stdout ?? '', code: Number(error.code) };
      },
    );
    const findings = stdout.split('\n').filter(Boolean);
    for (const finding of findings) console.log(finding.replace(`${root}/`, ''));
    // cfn-lint's exit code is a bit mask: 2 errors, 4 warnings, 8 informational.
    const errors = (code & 2) !== 0;
    const warnings = (code & 4) !== 0;
    console.log(
      `cfn-lint: ${templates.length} templates, ${findings.length} findings (${Date.now() - started} ms)` +
        `${errors ? ', ERRORS' : ''}${warnings ? ', warnings' : ''}`,
    );
    if (errors || warnings || findings.length > 0) process.exitCode = 1;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
