import {
  type CallEnv,
  type HttpRequest,
  MalformedCallError,
  type RequestTarget,
  type ServiceDescription,
} from './call-model.ts';
import type { ContextValue } from './policy.ts';

/** One session tag of an `AssumeRole` request. */
export interface SessionTag {
  key: string;
  value: string;
}

/** An STS `AssumeRole` request, read from its Query-protocol parameters. */
export interface AssumeRoleRequest {
  roleArn: string;
  roleSessionName: string;
  /** `DurationSeconds`, when given (AWS's default is 3,600). */
  durationSeconds?: number;
  tags: SessionTag[];
  transitiveTagKeys: string[];
  externalId?: string;
  sourceIdentity?: string;
}

/**
 * The parameters of an AWS Query protocol request (STS): the form-encoded body of a POST, merged over the query
 * string (`Action=AssumeRole&Version=2011-06-15&…`).
 */
export function queryParameters(http: Pick<HttpRequest, 'body'>, url: Pick<RequestTarget, 'searchParams'>) {
  const parameters = new URLSearchParams(url.searchParams);
  for (const [name, value] of new URLSearchParams(http.body.toString('utf8'))) parameters.set(name, value);
  return parameters;
}

/** `Tags.member.<n>.Key` / `.Value` pairs and `TransitiveTagKeys.member.<n>`, in member order. */
export function readAssumeRole(parameters: URLSearchParams): AssumeRoleRequest {
  const required = (name: string) => {
    const value = parameters.get(name);
    if (!value) throw new MalformedCallError(`AssumeRole needs ${name}`);
    return value;
  };
  const members = (prefix: string) =>
    [...parameters.keys()]
      .map((name) => new RegExp(`^${prefix}\\.member\\.(\\d+)(?:\\.|$)`).exec(name)?.[1])
      .filter((index): index is string => index !== undefined)
      .map(Number)
      .filter((index, position, all) => all.indexOf(index) === position)
      .sort((a, b) => a - b);
  const tags = members('Tags').map((index) => ({
    key: parameters.get(`Tags.member.${index}.Key`) ?? '',
    value: parameters.get(`Tags.member.${index}.Value`) ?? '',
  }));
  const transitiveTagKeys = members('TransitiveTagKeys').map(
    (index) => parameters.get(`TransitiveTagKeys.member.${index}`) ?? '',
  );
  const duration = parameters.get('DurationSeconds');
  if (duration !== null && !/^\d+$/.test(duration)) {
    throw new MalformedCallError(`DurationSeconds is not a number: ${duration}`);
  }
  return {
    roleArn: required('RoleArn'),
    roleSessionName: required('RoleSessionName'),
    ...(duration === null ? {} : { durationSeconds: Number(duration) }),
    tags,
    transitiveTagKeys,
    ...optional('externalId', parameters.get('ExternalId')),
    ...optional('sourceIdentity', parameters.get('SourceIdentity')),
  };
}

const optional = <K extends string>(name: K, value: string | null) =>
  (value === null ? {} : { [name]: value }) as Partial<Record<K, string>>;

/**
 * Describes an STS request (AWS Query protocol). `AssumeRole` needs `sts:AssumeRole` on the role, and, when it passes
 * session tags or transitive tag keys, `sts:TagSession` too (IAM User Guide, "Passing session tags in AWS STS":
 * "In addition to the action that matches the API operation, you must have the following permissions-only action");
 * both carry the request's tags as `aws:RequestTag/<key>` and `aws:TagKeys`, the transitive keys as
 * `sts:TransitiveTagKeys`, and the session name as `sts:RoleSessionName`. `GetCallerIdentity` needs no permission.
 */
export function describeStsCall(http: HttpRequest, url: RequestTarget, _env: CallEnv): ServiceDescription {
  const parameters = queryParameters(http, url);
  const action = parameters.get('Action');
  if (action === 'GetCallerIdentity') return { operation: action, authorizations: [] };
  if (action !== 'AssumeRole') {
    const target = `sts:${action ?? '(no Action)'}`;
    return { error: `unsupported operation ${action ?? '(no Action)'} of sts`, reason: 'unsupported', target };
  }
  const request = readAssumeRole(parameters);
  const context: Record<string, ContextValue | undefined> = {
    'sts:RoleSessionName': request.roleSessionName,
    'sts:ExternalId': request.externalId,
    'sts:SourceIdentity': request.sourceIdentity,
    'aws:TagKeys': request.tags.length > 0 ? request.tags.map((tag) => tag.key) : undefined,
    'sts:TransitiveTagKeys': request.transitiveTagKeys.length > 0 ? request.transitiveTagKeys : undefined,
    ...Object.fromEntries(request.tags.map((tag) => [`aws:RequestTag/${tag.key}`, tag.value])),
  };
  const tagged = request.tags.length > 0 || request.transitiveTagKeys.length > 0;
  return {
    operation: action,
    authorizations: [
      { action: 'sts:AssumeRole', resource: request.roleArn, context },
      ...(tagged ? [{ action: 'sts:TagSession', resource: request.roleArn, context }] : []),
    ],
  };
}
