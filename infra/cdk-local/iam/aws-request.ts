import {
  type AwsCall,
  type AwsCallError,
  type CallEnv,
  type DescribeContext,
  type HttpRequest,
  MalformedCallError,
  type RequestTarget,
  type ServiceDescription,
} from './call-model.ts';
import { describeJsonCall, JSON_TARGET_PREFIXES } from './json-services.ts';
import type { ContextValue, RequestContext } from './policy.ts';
import { describeLambdaCall, describeS3Call } from './rest-services.ts';
import { describeStsCall } from './sts-service.ts';

export type { AwsAuthorization, AwsCall, AwsCallError, DescribeContext, HttpRequest } from './call-model.ts';

interface Signature {
  accessKeyId: string;
  region?: string;
  service: string;
  presigned?: AwsCall['presigned'];
  signedAt?: Date;
}

/**
 * Describes an AWS SDK request: the caller's access key id (from the SigV4 `Authorization` header or a pre-signed
 * URL's `X-Amz-Credential`), the operation, and the IAM authorizations it needs, with the actions of AWS's Service
 * Authorization Reference and the common condition keys (`aws:SecureTransport` is true: the gateway stands in for
 * HTTPS endpoints). Anything not understood is an error result, so the gateway can deny loudly.
 */
export function describeAwsCall(http: HttpRequest, ctx: DescribeContext): AwsCall | AwsCallError {
  const query = http.path.indexOf('?');
  const url: RequestTarget = {
    pathname: query < 0 ? http.path : http.path.slice(0, query),
    searchParams: new URLSearchParams(query < 0 ? '' : http.path.slice(query + 1)),
  };
  const signature = readSignature(http, url);
  if ('error' in signature) return signature;
  const region = signature.region ?? ctx.defaultRegion;
  if (!region) return { error: 'the signature names no region', reason: 'malformed' };
  const now = ctx.now?.() ?? new Date();
  const env: CallEnv = {
    region,
    account: ctx.account,
    ctx,
    presigned: signature.presigned !== undefined,
    ...(signature.signedAt ? { signedAt: signature.signedAt } : {}),
    now,
  };
  let description: ServiceDescription;
  try {
    description = describeService(http, url, signature.service, env);
  } catch (error) {
    if (error instanceof MalformedCallError) return { error: error.message, reason: 'malformed' };
    throw error;
  }
  if ('error' in description) return description;
  const common = commonContext(http, signature, env);
  return {
    accessKeyId: signature.accessKeyId,
    service: signature.service,
    operation: description.operation,
    region,
    authorizations: description.authorizations.map(({ action, resource, context }) => ({
      action,
      resource,
      context: withoutUndefined({ ...common, ...context }),
    })),
    ...(signature.presigned ? { presigned: signature.presigned } : {}),
  };
}

function describeService(http: HttpRequest, url: RequestTarget, service: string, env: CallEnv): ServiceDescription {
  const target = http.headers['x-amz-target'];
  if (target) {
    const dot = target.lastIndexOf('.');
    const prefix = target.slice(0, dot);
    const targetService = JSON_TARGET_PREFIXES[prefix];
    if (dot < 0 || !targetService) {
      return { error: `unsupported AWS JSON target ${target} (signed for ${service})`, reason: 'unsupported', target };
    }
    if (targetService !== service) {
      return { error: `X-Amz-Target ${target} is for ${targetService} but signed for ${service}`, reason: 'malformed' };
    }
    return describeJsonCall(service, target.slice(dot + 1), parseJsonBody(http.body), env);
  }
  if (service === 's3') return describeS3Call(http, url, env);
  if (service === 'lambda') return describeLambdaCall(http, url, env);
  if (service === 'sts') return describeStsCall(http, url, env);
  const name = `${service} ${http.method} ${url.pathname}`;
  return { error: `unsupported AWS request ${name} (no X-Amz-Target)`, reason: 'unsupported', target: name };
}

function readSignature(http: HttpRequest, url: RequestTarget): Signature | AwsCallError {
  const authorization = http.headers.authorization;
  if (authorization) {
    const match = /^(AWS4-HMAC-SHA256|AWS4-ECDSA-P256-SHA256)\s+(.*)$/s.exec(authorization.trim());
    if (!match) return { error: 'unsupported Authorization scheme (expected AWS4-HMAC-SHA256)', reason: 'malformed' };
    const fields = Object.fromEntries(
      match[2]!.split(',').map((field) => {
        const [name = '', ...value] = field.trim().split('=');
        return [name, value.join('=')];
      }),
    );
    const scope = parseCredential(fields.Credential);
    if (!scope) return { error: 'malformed SigV4 Credential in the Authorization header', reason: 'malformed' };
    const signedAt = parseAmzDate(http.headers['x-amz-date'] ?? '');
    return { ...scope, ...(signedAt ? { signedAt } : {}) };
  }
  const credential = url.searchParams.get('X-Amz-Credential');
  if (credential !== null) {
    const scope = parseCredential(credential);
    if (!scope) return { error: 'malformed X-Amz-Credential', reason: 'malformed' };
    const amzDate = url.searchParams.get('X-Amz-Date') ?? '';
    const expires = url.searchParams.get('X-Amz-Expires') ?? '';
    const signedAt = parseAmzDate(amzDate);
    if (!signedAt) return { error: `malformed X-Amz-Date ${amzDate}`, reason: 'malformed' };
    if (!/^\d+$/.test(expires)) return { error: `malformed X-Amz-Expires ${expires}`, reason: 'malformed' };
    return { ...scope, signedAt, presigned: { signedAt, expiresSeconds: Number(expires), amzDate } };
  }
  return { error: 'the request is not signed (no Authorization header or X-Amz-Credential)', reason: 'unsigned' };
}

/** `<AKID>/<yyyymmdd>/<region>/<service>/aws4_request`; SigV4a scopes have no region. */
function parseCredential(credential: string | undefined): Omit<Signature, 'presigned'> | undefined {
  const parts = credential?.split('/') ?? [];
  if (parts.at(-1) !== 'aws4_request' || (parts.length !== 5 && parts.length !== 4) || !parts[0]) return undefined;
  const service = parts.at(-2)!;
  return parts.length === 5
    ? { accessKeyId: parts[0], region: parts[2]!, service }
    : { accessKeyId: parts[0], service };
}

function parseAmzDate(text: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number);
  return new Date(Date.UTC(year!, month! - 1, day!, hour!, minute!, second!));
}

function parseJsonBody(body: Buffer): Record<string, unknown> {
  if (body.length === 0) return {};
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {}
  throw new MalformedCallError('the request body is not a JSON object');
}

function commonContext(
  http: HttpRequest,
  signature: Signature,
  env: CallEnv,
): Record<string, ContextValue | undefined> {
  const principal = env.ctx.principalArn?.(signature.accessKeyId);
  // aws:PrincipalArn is the role's ARN, not the session's (IAM User Guide, "aws:PrincipalArn").
  const session = principal ? /^arn:([^:]+):sts::(\d{12}):assumed-role\/([^/]+)\//.exec(principal) : null;
  const principalArn = session ? `arn:${session[1]}:iam::${session[2]}:role/${session[3]}` : principal;
  return {
    'aws:SecureTransport': true,
    'aws:CurrentTime': env.now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    'aws:EpochTime': Math.floor(env.now.getTime() / 1000),
    'aws:RequestedRegion': env.region,
    'aws:PrincipalArn': principalArn,
    'aws:PrincipalAccount': principalArn
      ? (/^arn:[^:]+:[^:]+::(\d{12}):/.exec(principalArn)?.[1] ?? env.account)
      : undefined,
    'aws:PrincipalType': principalArn?.includes(':role/') ? 'AssumedRole' : undefined,
    'aws:PrincipalIsAWSService': false,
    'aws:ViaAWSService': false,
    'aws:SourceIp': http.sourceIp,
    'aws:UserAgent': http.headers['user-agent'],
  };
}

function withoutUndefined(context: Record<string, ContextValue | undefined>): RequestContext {
  return Object.fromEntries(Object.entries(context).filter(([, value]) => value !== undefined)) as RequestContext;
}
