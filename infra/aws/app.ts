import { App } from 'aws-cdk-lib';
import { buildApp } from './build-app.ts';

// cdk.json runs this file: `cdk synth|deploy -c stage=dev|prod` (default dev).
buildApp(new App());
