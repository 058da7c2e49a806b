import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '#infra/aws/build-app';
import { QUEUES } from '#infra/aws/functions';
import type { ServiceStack } from '#infra/aws/stacks/service-stack';
import { SQS_FAIR_QUEUE_DEFAULTS } from '#infra/local/queue';
import { REPORT_TYPES } from '#shared/domain/reports/records';
import { ATTEMPTS_IN_FLIGHT_PER_SUBSCRIPTION } from '#shared/domain/webhooks/subscription';
import { poolSizeVariable } from '#shared/events/catalog';
import { flatTemplate, type Json, logicalId, resources, testApp } from './support.ts';

/** WEBHOOK_SUBSCRIPTION_LIMIT's default (shared/config/env.ts). */
const SUBSCRIPTIONS_PER_ORGANISATION = 20;

/**
 * CONTRACT §18: the shared workers are SQS fair queues. Fair queues only reorder what consumers receive, so the
 * consumers' batch sizes and concurrency decide whether a noisy organisation is ever detected and whether a quiet
 * one finds a free consumer.
 */
describe('fair queues: consumer sizing (CONTRACT §18)', () => {
  let stack: ServiceStack;
  let template: Template;
  const mappingOf = (queue: string): Json => {
    const worker = stack.workers.get(queue)!;
    const fnId = logicalId(worker.consumer.fn);
    const found = resources(template, 'AWS::Lambda::EventSourceMapping').find(([, mapping]) =>
      JSON.stringify(mapping.Properties.FunctionName).includes(fnId),
    );
    expect(found, `${queue} has an event source mapping`).toBeDefined();
    return found![1].Properties;
  };

  beforeAll(() => {
    stack = buildApp(testApp(), 'dev');
    template = flatTemplate(stack);
  });

  it('lets the in-flight share detect a flooding organisation: twice the 30 in flight a tenant needs, or more', () => {
    for (const name of ['group-requests', 'outbound-messages', 'webhook-deliveries', 'network-notifications']) {
      const mapping = mappingOf(name);
      expect(mapping.BatchSize * mapping.ScalingConfig.MaximumConcurrency, name).toBeGreaterThanOrEqual(
        2 * SQS_FAIR_QUEUE_DEFAULTS.minInFlight,
      );
    }
  });

  it('keeps a report worker free for another organisation while one runs all of its report types', () => {
    const mapping = mappingOf('report-requests');

    // One report per invocation: a heavy organisation shows in its share of processing time.
    expect(mapping.BatchSize).toBe(1);
    expect(mapping.ScalingConfig.MaximumConcurrency).toBeGreaterThan(REPORT_TYPES.length);
  });

  it("keeps dispatchers free while one organisation's every subscription holds its attempts in flight", () => {
    const mapping = mappingOf('webhook-deliveries');

    expect(mapping.ScalingConfig.MaximumConcurrency).toBeGreaterThanOrEqual(
      ATTEMPTS_IN_FLIGHT_PER_SUBSCRIPTION * SUBSCRIPTIONS_PER_ORGANISATION + 10,
    );
  });

  it("tells each consumer whose organisations share its pool the pool's size as deployed (its MaximumConcurrency)", () => {
    const shared = QUEUES.filter((def) => def.orgShare);
    expect(shared.map((def) => def.name).sort()).toEqual([
      'group-requests',
      'outbound-messages',
      'report-requests',
      'webhook-deliveries',
      'webhook-slow-receivers',
    ]);
    for (const def of shared) {
      const fnId = logicalId(stack.workers.get(def.name)!.consumer.fn);
      const fn = resources(template, 'AWS::Lambda::Function').find(([id]) => id === fnId)![1];
      expect(fn.Properties.Environment.Variables[poolSizeVariable(def.name)], def.name).toBe(
        String(mappingOf(def.name).ScalingConfig.MaximumConcurrency),
      );
    }
  });

  it('gives slow webhook receivers a pool of their own, apart from the healthy receivers’ (issue 35)', () => {
    const healthy = mappingOf('webhook-deliveries');
    const slow = mappingOf('webhook-slow-receivers');

    expect(slow.EventSourceArn).not.toEqual(healthy.EventSourceArn);
    expect(slow.ScalingConfig.MaximumConcurrency).toBeLessThan(healthy.ScalingConfig.MaximumConcurrency);
  });

  it('is sized from the one queue catalog both deployments read', () => {
    for (const def of QUEUES) {
      const mapping = mappingOf(def.name);
      expect([mapping.BatchSize, mapping.ScalingConfig.MaximumConcurrency], def.name).toEqual([
        def.batchSize,
        def.maxConcurrency,
      ]);
    }
  });
});
