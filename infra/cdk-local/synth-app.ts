import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { buildApp } from '#infra/aws/build-app';
import { REPO_ROOT } from '#infra/aws/constructs/app-function';
import { parseStage } from '#infra/aws/stage';

// `node --import tsx infra/cdk-local/synth-app.ts <outdir> <stage> [<context JSON>]`: what `cdk synth` does, with
// cdk.json's context and the given one (`-c` options), bundling on and the slow WASM template validator off (cdk-nag
// still runs and fails the synth on a finding).
const [outdir, stage, given = '{}'] = process.argv.slice(2);
if (!outdir) throw new Error('usage: synth-app.ts <outdir> [stage] [context JSON]');
const { context } = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
  context: Record<string, unknown>;
};
const app = new App({
  outdir,
  // What the CLI adds to every synth: asset metadata tells which asset holds each function's bundle.
  context: {
    ...context,
    ...(JSON.parse(given) as Record<string, string>),
    stage,
    'aws:cdk:enable-asset-metadata': true,
    'aws:cdk:enable-path-metadata': true,
  },
  builtinCloudFormationValidation: false,
});
buildApp(app, parseStage(stage));
app.synth();
