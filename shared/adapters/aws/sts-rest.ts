import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentityProvider, HttpRequest } from '@smithy/types';
import { NodeSha256, xmlText } from '#shared/adapters/s3/s3-rest';
import type { AssumedSession } from './tenant-credentials.ts';

/**
 * STS `AssumeRole` as one SigV4-signed Query-protocol POST (STS API Reference), without the SDK's STS client: the
 * functions bundle the environment credential provider instead of the SDK's default chain and its STS client (P1,
 * bench/RESULTS.md), and this is the one STS call they make. Regional endpoint (`https://sts.<region>.amazonaws.com`),
 * or the configured one (`AWS_ENDPOINT_URL_STS`, `AWS_ENDPOINT_URL`: start:cdk's gateway).
 */
export interface AssumeRoleCall {
  roleArn: string;
  sessionName: string;
  durationSeconds: number;
  tags: Record<string, string>;
}

export class StsError extends Error {
  constructor(
    readonly code: string,
    readonly statusCode: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = code;
  }
}

export class StsRest {
  readonly #signer: SignatureV4;

  constructor(
    private readonly options: {
      region: string;
      endpoint?: string;
      credentials: AwsCredentialIdentityProvider;
      timeoutMs?: number;
    },
  ) {
    this.#signer = new SignatureV4({
      service: 'sts',
      region: options.region,
      credentials: options.credentials,
      sha256: NodeSha256,
    });
  }

  /** Assumes the role; retries a network error, a 5xx or a throttle once after a short pause. */
  async assumeRole(call: AssumeRoleCall): Promise<AssumedSession> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#assumeOnce(call);
      } catch (error) {
        const retryable =
          !(error instanceof StsError) || (error.statusCode ?? 500) >= 500 || /Throttl/.test(error.code);
        if (!retryable || attempt === 2) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
      }
    }
  }

  async #assumeOnce(call: AssumeRoleCall): Promise<AssumedSession> {
    const url = new URL(this.options.endpoint ?? `https://sts.${this.options.region}.amazonaws.com`);
    const form = new URLSearchParams({
      Action: 'AssumeRole',
      Version: '2011-06-15',
      RoleArn: call.roleArn,
      RoleSessionName: call.sessionName,
      DurationSeconds: String(call.durationSeconds),
    });
    Object.entries(call.tags).forEach(([key, value], index) => {
      form.set(`Tags.member.${index + 1}.Key`, key);
      form.set(`Tags.member.${index + 1}.Value`, value);
    });
    const body = form.toString();
    const request: HttpRequest = {
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      path: url.pathname,
      headers: { host: url.host, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body,
      query: {},
    };
    const signed = await this.#signer.sign(request);
    const { host: _host, ...headers } = signed.headers;
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 3_000),
    });
    const xml = await response.text();
    if (!response.ok) {
      throw new StsError(xmlText(xml, 'Code') ?? 'UnknownError', response.status, xmlText(xml, 'Message') ?? xml);
    }
    const [accessKeyId, secretAccessKey, sessionToken, expiration] = [
      'AccessKeyId',
      'SecretAccessKey',
      'SessionToken',
      'Expiration',
    ].map((tag) => xmlText(xml, tag));
    if (!accessKeyId || !secretAccessKey || !sessionToken || !expiration) {
      throw new StsError('MalformedResponse', response.status, 'AssumeRole answered without credentials');
    }
    return { accessKeyId, secretAccessKey, sessionToken, expiration: new Date(expiration) };
  }
}
