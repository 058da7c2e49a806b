import { RemovalPolicy } from 'aws-cdk-lib';

export const STAGES = ['dev', 'prod'] as const;
export type Stage = (typeof STAGES)[number];

/** The `-c stage=…` value; anything but a known stage fails the synth before a stack is named after it. */
export function parseStage(value: unknown = 'dev'): Stage {
  if (typeof value === 'string' && (STAGES as readonly string[]).includes(value)) return value as Stage;
  throw new Error(`unknown stage ${JSON.stringify(value)}: use -c stage=${STAGES.join('|')}`);
}

/** Stateful resources survive a stack deletion everywhere but in dev, which is disposable. */
export const removalPolicyFor = (stage: Stage) => (stage === 'dev' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN);
