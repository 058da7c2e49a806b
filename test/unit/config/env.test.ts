import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '#shared/config/env';

describe('loadConfig', () => {
  it('has working local defaults for every variable of the contract', () => {
    const config = loadConfig({});

    expect(config.jwt.ttlSeconds).toBe(3600);
    expect(config.groups.createRateLimit).toEqual({ limit: 30, windowSeconds: 60 });
    expect(config.messaging.sendRateLimit).toEqual({ limit: 600, windowSeconds: 60 });
    expect(config.webhooks.subscriptionLimit).toBe(20);
    expect(config.groups.confirmationTimeoutSeconds).toBe(600);
    expect(config.reports).toMatchObject({
      windowSeconds: 300,
      processingTimeoutSeconds: 900,
      retentionSeconds: 604800,
      downloadUrlTtlSeconds: 900,
    });
    expect(config.webhooks.retryScheduleSeconds).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(config.whatsapp.graphUrl).toBe('https://graph.facebook.com/v23.0');
    expect(config.local).toMatchObject({
      port: 3000,
      dataDir: '.wpcrm',
      dynamoPort: 8000,
      s3Port: 4569,
      simulatorPort: 4580,
    });
  });

  it('parses overrides', () => {
    const config = loadConfig({
      GROUP_CREATE_RATE_LIMIT: '5/10',
      WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,2',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    });

    expect(config.groups.createRateLimit).toEqual({ limit: 5, windowSeconds: 10 });
    expect(config.webhooks).toEqual({ retryScheduleSeconds: [1, 2], allowPrivateTargets: true, subscriptionLimit: 20 });
  });

  it('reads the per-organisation quotas of CONTRACT §18, with their defaults', () => {
    const defaults = loadConfig({}).quotas;
    const overridden = loadConfig({
      ORG_REQUEST_RATE_LIMIT: '10/1',
      NETWORK_CALL_RATE_LIMIT: '3/5',
      WEBHOOK_REDELIVER_RATE_LIMIT: '2/60',
    }).quotas;

    expect(defaults).toEqual({
      requests: { limit: 1200, windowSeconds: 60 },
      networkCalls: { limit: 120, windowSeconds: 60 },
      redeliveries: { limit: 60, windowSeconds: 3600 },
    });
    expect(overridden).toEqual({
      requests: { limit: 10, windowSeconds: 1 },
      networkCalls: { limit: 3, windowSeconds: 5 },
      redeliveries: { limit: 2, windowSeconds: 60 },
    });
    expect(() => loadConfig({ ORG_REQUEST_RATE_LIMIT: '0/60' })).toThrow(/ORG_REQUEST_RATE_LIMIT/);
  });

  it('takes the S3 endpoint from S3_ENDPOINT, else from the SDK’s configured-endpoint variables unless ignored', () => {
    const s3 = (env: Record<string, string>) => loadConfig(env).aws.endpoints.s3;

    expect(s3({})).toBeUndefined();
    expect(s3({ AWS_ENDPOINT_URL: 'http://127.0.0.1:4000' })).toBe('http://127.0.0.1:4000');
    expect(s3({ AWS_ENDPOINT_URL: 'http://127.0.0.1:4000', AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:4001' })).toBe(
      'http://127.0.0.1:4001',
    );
    expect(s3({ AWS_ENDPOINT_URL: 'http://127.0.0.1:4000', S3_ENDPOINT: 'http://127.0.0.1:4569' })).toBe(
      'http://127.0.0.1:4569',
    );
    expect(
      s3({ AWS_ENDPOINT_URL: 'http://127.0.0.1:4000', AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'TRUE' }),
    ).toBeUndefined();
  });

  it("reads a shared consumer's pool as deployed (<QUEUE>_POOL_SIZE): none for a queue without one (issue 35)", () => {
    expect(loadConfig({}).poolSize('webhook-deliveries')).toBeUndefined();
    expect(loadConfig({ WEBHOOK_DELIVERIES_POOL_SIZE: '4' }).poolSize('webhook-deliveries')).toBe(4);
    expect(() => loadConfig({ REPORT_REQUESTS_POOL_SIZE: '0' }).poolSize('report-requests')).toThrow(
      /REPORT_REQUESTS_POOL_SIZE/,
    );
  });

  it("reads a queue's URL by its logical name (<QUEUE>_QUEUE_URL)", () => {
    const url = 'https://sqs.eu-west-1.amazonaws.com/000000000000/group-requests';

    expect(loadConfig({ GROUP_REQUESTS_QUEUE_URL: url }).queueUrl('group-requests')).toBe(url);
    expect(loadConfig({}).queueUrl('group-requests')).toBeUndefined();
  });

  it('names every invalid variable at once', () => {
    const attempt = () =>
      loadConfig({ TOKEN_TTL_SECONDS: 'soon', GROUP_CREATE_RATE_LIMIT: '30', WHATSAPP_GRAPH_URL: 'not a url' });

    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      const problems = (error as ConfigError).problems.join('\n');
      expect(problems).toContain('TOKEN_TTL_SECONDS');
      expect(problems).toContain('GROUP_CREATE_RATE_LIMIT');
      expect(problems).toContain('WHATSAPP_GRAPH_URL');
    }
  });

  it('refuses a download URL lifetime the signing session cannot honour', () => {
    expect(loadConfig({ REPORT_DOWNLOAD_URL_TTL_SECONDS: '3600' }).reports.downloadUrlTtlSeconds).toBe(3600);
    expect(() => loadConfig({ REPORT_DOWNLOAD_URL_TTL_SECONDS: '3601' })).toThrow(/REPORT_DOWNLOAD_URL_TTL_SECONDS/);
  });
});
