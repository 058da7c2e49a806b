import { isIP } from 'node:net';
import {
  type CallEnv,
  type HttpRequest,
  MalformedCallError,
  type RequestTarget,
  type ServiceAuthorization,
  type ServiceDescription,
} from './call-model.ts';
import type { ContextValue } from './policy.ts';

type Context = Record<string, ContextValue | undefined>;

/** Host names that address S3 itself, so `<bucket>.<host>` is virtual-hosted (`localhost` as LocalStack does). */
const S3_HOSTS = [/^s3[.-](?:[a-z0-9-]+\.)?amazonaws\.com$/, /^localhost$/];

/**
 * Describes an S3 REST request, path-style (`/<bucket>/<key>`) or virtual-hosted (`<bucket>.<host>/<key>`), by
 * method and sub-resource, with the actions of the Service Authorization Reference (multipart parts are
 * `s3:PutObject`, `HeadObject` is `s3:GetObject`, listing is `s3:ListBucket` on the bucket).
 */
export function describeS3Call(http: HttpRequest, url: RequestTarget, env: CallEnv): ServiceDescription {
  const { bucket, key } = s3Target(http, url, env);
  const request = s3Request(http, url, env, bucket, key);
  if (bucket === undefined) {
    return request.method === 'GET'
      ? request.call('ListBuckets', [{ action: 's3:ListAllMyBuckets', resource: '*' }])
      : request.unsupported();
  }
  const bucketArn = `arn:aws:s3:::${bucket}`;
  if (key === undefined) return describeBucketCall(request, bucketArn);
  return describeObjectCall(request, `${bucketArn}/${key}`);
}

/** An S3 request as the describers read it, with its description's makers. */
interface S3Request {
  http: HttpRequest;
  query: URLSearchParams;
  method: string;
  versionId: string | undefined;
  /** The description of `operation`: its authorizations, each with the request's common condition keys. */
  call(operation: string, authorizations: ServiceAuthorization[]): ServiceDescription;
  /** The description of a request the describer does not know. */
  unsupported(): ServiceDescription;
}

function s3Request(
  http: HttpRequest,
  url: RequestTarget,
  env: CallEnv,
  bucket: string | undefined,
  key: string | undefined,
): S3Request {
  const query = url.searchParams;
  const method = http.method.toUpperCase();
  const common = s3Context(http, env);
  const versionId = query.get('versionId') ?? undefined;
  const call = (operation: string, authorizations: ServiceAuthorization[]): ServiceDescription => ({
    operation,
    authorizations: authorizations.map((authorization) => ({
      ...authorization,
      context: { ...common, ...authorization.context },
    })),
  });
  const unsupported = (): ServiceDescription => {
    const target = `s3 ${method} ${bucket === undefined ? '/' : key === undefined ? 'bucket' : 'object'}${[
      ...query.keys(),
    ]
      .filter((name) => !name.startsWith('X-Amz-') && name !== 'x-id')
      .map((name) => `?${name}`)
      .join('')}`;
    return { error: `unsupported S3 request ${target}`, reason: 'unsupported', target };
  };
  return { http, query, method, versionId, call, unsupported };
}

/** A request to a bucket (no key): the bucket's own APIs, listing, and DeleteObjects. */
function describeBucketCall(request: S3Request, bucketArn: string): ServiceDescription {
  const { http, query, method, call, unsupported } = request;
  const on = (operation: string, action: string, context: Context = {}) =>
    call(operation, [{ action, resource: bucketArn, context }]);
  if (method === 'GET') {
    if (query.has('location')) return on('GetBucketLocation', 's3:GetBucketLocation');
    if (query.has('tagging')) return on('GetBucketTagging', 's3:GetBucketTagging');
    if (query.has('policy')) return on('GetBucketPolicy', 's3:GetBucketPolicy');
    if (query.has('uploads')) return on('ListMultipartUploads', 's3:ListBucketMultipartUploads');
    if (query.has('versions')) return on('ListObjectVersions', 's3:ListBucketVersions', listContext(query));
    if ([...query.keys()].some(isSubresource)) return unsupported();
    return on(query.get('list-type') === '2' ? 'ListObjectsV2' : 'ListObjects', 's3:ListBucket', listContext(query));
  }
  if (method === 'HEAD') return on('HeadBucket', 's3:ListBucket');
  if (method === 'PUT') {
    if (query.has('tagging')) return on('PutBucketTagging', 's3:PutBucketTagging');
    if (query.has('policy')) return on('PutBucketPolicy', 's3:PutBucketPolicy');
    if ([...query.keys()].some(isSubresource)) return unsupported();
    return on('CreateBucket', 's3:CreateBucket', { 's3:x-amz-acl': http.headers['x-amz-acl'] });
  }
  if (method === 'DELETE') {
    // DeleteBucketTagging is authorized as s3:PutBucketTagging (Service Authorization Reference, Amazon S3).
    if (query.has('tagging')) return on('DeleteBucketTagging', 's3:PutBucketTagging');
    if (query.has('policy')) return on('DeleteBucketPolicy', 's3:DeleteBucketPolicy');
    if ([...query.keys()].some(isSubresource)) return unsupported();
    return on('DeleteBucket', 's3:DeleteBucket');
  }
  if (method === 'POST' && query.has('delete')) {
    const keys = [...new Set(deleteKeys(http.body))];
    const authorizations = keys.length
      ? keys.map((objectKey) => ({ action: 's3:DeleteObject', resource: `${bucketArn}/${objectKey}` }))
      : [{ action: 's3:DeleteObject', resource: `${bucketArn}/*` }];
    return call('DeleteObjects', authorizations);
  }
  return unsupported();
}

/** A request to an object: reads, writes, multipart uploads, copies, tagging and deletes, per version if named. */
function describeObjectCall(request: S3Request, objectArn: string): ServiceDescription {
  const { http, query, method, versionId, call, unsupported } = request;
  const on = (operation: string, action: string, context: Context = {}) =>
    call(operation, [{ action, resource: objectArn, context }]);
  // Version-specific actions carry "Version" after the verb and object: s3:GetObjectVersionTagging.
  const versioned = (action: string, versionAction: string) => (versionId === undefined ? action : versionAction);
  const versionContext = { 's3:versionid': versionId };
  const copySource = http.headers['x-amz-copy-source'];
  if (method === 'GET' || method === 'HEAD') {
    if (query.has('uploadId')) return on('ListParts', 's3:ListMultipartUploadParts');
    if (query.has('tagging'))
      return on('GetObjectTagging', versioned('s3:GetObjectTagging', 's3:GetObjectVersionTagging'), versionContext);
    if ([...query.keys()].some(isSubresource)) return unsupported();
    return on(
      method === 'GET' ? 'GetObject' : 'HeadObject',
      versioned('s3:GetObject', 's3:GetObjectVersion'),
      versionContext,
    );
  }
  if (method === 'PUT') {
    if (query.has('uploadId') && query.has('partNumber')) {
      if (copySource) return call('UploadPartCopy', copyAuthorizations(objectArn, copySource, http));
      return on('UploadPart', 's3:PutObject');
    }
    if (query.has('tagging'))
      return on('PutObjectTagging', versioned('s3:PutObjectTagging', 's3:PutObjectVersionTagging'), versionContext);
    if ([...query.keys()].some(isSubresource)) return unsupported();
    if (copySource) return call('CopyObject', copyAuthorizations(objectArn, copySource, http));
    return on('PutObject', 's3:PutObject', putContext(http));
  }
  if (method === 'POST') {
    if (query.has('uploads')) return on('CreateMultipartUpload', 's3:PutObject', putContext(http));
    if (query.has('uploadId')) return on('CompleteMultipartUpload', 's3:PutObject');
    return unsupported();
  }
  if (method === 'DELETE') {
    if (query.has('uploadId')) return on('AbortMultipartUpload', 's3:AbortMultipartUpload');
    if (query.has('tagging'))
      return on(
        'DeleteObjectTagging',
        versioned('s3:DeleteObjectTagging', 's3:DeleteObjectVersionTagging'),
        versionContext,
      );
    if ([...query.keys()].some(isSubresource)) return unsupported();
    return on('DeleteObject', versioned('s3:DeleteObject', 's3:DeleteObjectVersion'), versionContext);
  }
  return unsupported();
}

/**
 * Query parameters that do not change which API a request calls: signing and hoisted `x-amz-*` headers, listing
 * and paging, multipart ids, response overrides. Any other (`?acl`, `?cors`…) selects a sub-resource API.
 */
const PLAIN_PARAMETERS =
  /^(x-amz-.*|x-id|versionId|list-type|prefix|delimiter|max-keys|marker|continuation-token|start-after|fetch-owner|encoding-type|response-.*|partNumber|uploadId|max-parts|part-number-marker|key-marker|upload-id-marker|max-uploads|version-id-marker)$/i;

function isSubresource(name: string): boolean {
  return !PLAIN_PARAMETERS.test(name);
}

function s3Target(http: HttpRequest, url: RequestTarget, env: CallEnv): { bucket?: string; key?: string } {
  const virtual = virtualHostBucket(http.headers.host ?? '', env);
  const path = url.pathname.slice(1);
  const [first, ...rest] = virtual === undefined ? path.split('/') : [virtual, path];
  const bucket = first ? decode(virtual === undefined ? first : virtual) : undefined;
  const rawKey = virtual === undefined ? rest.join('/') : path;
  return { bucket, ...(bucket !== undefined && rawKey !== '' ? { key: decode(rawKey) } : {}) };
}

function virtualHostBucket(hostHeader: string, env: CallEnv): string | undefined {
  const host = hostHeader.startsWith('[') ? '' : hostHeader.replace(/:\d+$/, '').toLowerCase();
  if (!host || isIP(host)) return undefined;
  const own = env.ctx.s3Hosts ?? [];
  if (own.includes(host) || S3_HOSTS.some((pattern) => pattern.test(host))) return undefined;
  for (const service of own) if (host.endsWith(`.${service}`)) return host.slice(0, -service.length - 1);
  const dot = host.indexOf('.');
  if (dot > 0 && S3_HOSTS.some((pattern) => pattern.test(host.slice(dot + 1)))) return host.slice(0, dot);
  return undefined;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new MalformedCallError(`malformed percent-encoding in ${text}`);
  }
}

function s3Context(http: HttpRequest, env: CallEnv): Context {
  return {
    's3:authType': env.presigned ? 'REST-QUERY-STRING' : 'REST-HEADER',
    's3:signatureversion': 'AWS4-HMAC-SHA256',
    's3:signatureAge': env.signedAt ? Math.max(0, env.now.getTime() - env.signedAt.getTime()) : undefined,
    's3:x-amz-content-sha256': http.headers['x-amz-content-sha256'],
  };
}

function listContext(query: URLSearchParams): Context {
  const maxKeys = query.get('max-keys');
  return {
    's3:prefix': query.get('prefix') ?? undefined,
    's3:delimiter': query.get('delimiter') ?? undefined,
    's3:max-keys': maxKeys === null ? undefined : Number(maxKeys),
  };
}

function putContext(http: HttpRequest): Context {
  const tags = new URLSearchParams(http.headers['x-amz-tagging'] ?? '');
  const tagKeys = [...new Set(tags.keys())];
  return {
    's3:x-amz-acl': http.headers['x-amz-acl'],
    's3:x-amz-server-side-encryption': http.headers['x-amz-server-side-encryption'],
    's3:x-amz-server-side-encryption-aws-kms-key-id': http.headers['x-amz-server-side-encryption-aws-kms-key-id'],
    's3:x-amz-storage-class': http.headers['x-amz-storage-class'],
    's3:RequestObjectTagKeys': tagKeys.length > 0 ? tagKeys : undefined,
    ...Object.fromEntries(tagKeys.map((tag) => [`s3:RequestObjectTag/${tag}`, tags.get(tag) ?? ''])),
  };
}

/** A copy writes the destination and reads the source (`x-amz-copy-source: <bucket>/<key>[?versionId=…]`). */
function copyAuthorizations(objectArn: string, copySource: string, http: HttpRequest): ServiceAuthorization[] {
  const [path = '', search = ''] = copySource.split('?');
  const source = decode(path.replace(/^\//, ''));
  const sourceVersion = new URLSearchParams(search).get('versionId');
  return [
    {
      action: 's3:PutObject',
      resource: objectArn,
      context: {
        ...putContext(http),
        's3:x-amz-copy-source': copySource,
        's3:x-amz-metadata-directive': http.headers['x-amz-metadata-directive'],
      },
    },
    {
      action: sourceVersion === null ? 's3:GetObject' : 's3:GetObjectVersion',
      resource: `arn:aws:s3:::${source}`,
      context: { 's3:versionid': sourceVersion ?? undefined },
    },
  ];
}

/** The `<Key>`s of a DeleteObjects body (`<Delete><Object><Key>…</Key></Object>…</Delete>`). */
function deleteKeys(body: Buffer): string[] {
  return [...body.toString('utf8').matchAll(/<Key>([\s\S]*?)<\/Key>/g)].map((match) => unescapeXml(match[1]!));
}

function unescapeXml(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, entity: string) => {
    if (entity.startsWith('#x') || entity.startsWith('#X'))
      return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(Number(entity.slice(1)));
    return named[entity.toLowerCase()]!;
  });
}

/**
 * Describes Lambda's Invoke (`POST /2015-03-31/functions/<name|ARN|partial ARN>[:<qualifier>]/invocations`):
 * `lambda:InvokeFunction` on the function ARN, with the qualifier (`?Qualifier=` or the name's suffix) appended.
 */
export function describeLambdaCall(http: HttpRequest, url: RequestTarget, env: CallEnv): ServiceDescription {
  const invoke = /^\/2015-03-31\/functions\/([^/]+)\/invocations\/?$/.exec(url.pathname);
  const invokeAsync = /^\/2014-11-13\/functions\/([^/]+)\/invoke-async\/?$/.exec(url.pathname);
  const match = invoke ?? invokeAsync;
  if (!match || http.method.toUpperCase() !== 'POST') {
    const target = `lambda ${http.method} ${url.pathname}`;
    return { error: `unsupported Lambda request ${target}`, reason: 'unsupported', target };
  }
  const resource = functionArn(decode(match[1]!), url.searchParams.get('Qualifier') ?? undefined, env);
  return {
    operation: invoke ? 'Invoke' : 'InvokeAsync',
    authorizations: [{ action: 'lambda:InvokeFunction', resource }],
  };
}

function functionArn(name: string, qualifier: string | undefined, env: CallEnv): string {
  const groups = (
    /^arn:[^:]+:lambda:(?<region>[^:]+):(?<account>\d{12}):function:(?<fn>[^:]+)(?::(?<q>[^:]+))?$/.exec(name) ??
    /^(?<account>\d{12}):function:(?<fn>[^:]+)(?::(?<q>[^:]+))?$/.exec(name) ??
    /^(?<fn>[^:]+)(?::(?<q>[^:]+))?$/.exec(name)
  )?.groups;
  if (!groups?.fn) throw new MalformedCallError(`malformed function name ${name}`);
  const { region = env.region, account = env.account, fn, q } = groups;
  const suffix = qualifier ?? q;
  return `arn:aws:lambda:${region}:${account}:function:${fn}${suffix === undefined ? '' : `:${suffix}`}`;
}
