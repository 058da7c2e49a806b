import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LocalBus, PutEventsEntry } from './bus.ts';
import { admitSigned, type GuardRefusal } from './loopback-guard.ts';
import type { LocalCredentials } from './sigv4.ts';

/** What the endpoint needs of a bus: the local one, or the template's (infra/cdk-local). */
export type EventBusBackend = Pick<LocalBus, 'put'>;

import type { LocalQueue } from './queue.ts';

/**
 * A loopback endpoint that speaks the AWS JSON protocol for the SQS and EventBridge calls the service makes
 * (SendMessage, SendMessageBatch, ChangeMessageVisibility, GetQueueAttributes, PutEvents), so the production SQS and
 * EventBridge adapters run unchanged against the in-process queues and bus; and those an operator's `wpcrm dlq …`
 * makes (ListQueues, ReceiveMessage, DeleteMessage).
 *
 * Like the embedded DynamoDB and S3 servers it answers only the stack's own clients (CONTRACT §21; issue: a web page
 * made an organisation's receiver get a forged event): a request with an `Origin` header, a `Host` other than
 * 127.0.0.1 (or localhost) and its port, or not SigV4-signed with the stack's key of this run is refused, before it
 * is parsed, with the error each SDK parses (AWS JSON `__type`; SQS's query-compatible code as well).
 */
export class AwsEmulator {
  #server: Server;

  constructor(
    private readonly queues: Map<string, LocalQueue>,
    private readonly bus: EventBusBackend,
    /** The stack's key of this run: the only signature let in. */
    private readonly credentials: LocalCredentials,
  ) {
    this.#server = createServer((request, response) => {
      void this.#handle(request, response);
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  queueUrl(name: string): string {
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/000000000000/${name}`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const target = String(request.headers['x-amz-target'] ?? '');
    const { port } = this.#server.address() as AddressInfo;
    const admission = admitSigned(request, port, this.credentials, Buffer.concat(chunks));
    if (!admission.ok) return this.#refuse(response, target, admission.kind, admission.reason);
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      return this.#reply(response, 400, '1.0', { __type: 'SerializationException', message: 'bad JSON' });
    }
    const [service, operation] = target.split('.');
    if (service === 'AWSEvents' && operation === 'PutEvents') {
      const results = this.bus.put((input.Entries as PutEventsEntry[]) ?? []);
      const failed = results.filter((result) => result.ErrorCode).length;
      return this.#reply(response, 200, '1.1', { FailedEntryCount: failed, Entries: results });
    }
    if (service !== 'AmazonSQS') {
      return this.#reply(response, 400, '1.0', { __type: 'UnknownOperationException', message: target });
    }
    return this.#sqs(response, operation, input);
  }

  /** An SQS JSON-protocol operation on one of the queues (or ListQueues). */
  #sqs(response: ServerResponse, operation: string | undefined, input: Record<string, unknown>) {
    if (operation === 'ListQueues') {
      const prefix = String(input.QueueNamePrefix ?? '');
      const QueueUrls = [...this.queues.keys()]
        .filter((name) => name.startsWith(prefix))
        .map((name) => this.queueUrl(name));
      return this.#reply(response, 200, '1.0', { QueueUrls });
    }
    const queue = this.queues.get(
      String(input.QueueUrl ?? '')
        .split('/')
        .pop() ?? '',
    );
    if (!queue) {
      return this.#reply(response, 400, '1.0', {
        __type: 'com.amazonaws.sqs#QueueDoesNotExist',
        message: 'The specified queue does not exist.',
      });
    }
    const md5 = (body: string) => createHash('md5').update(body).digest('hex');
    switch (operation) {
      case 'SendMessage': {
        const body = String(input.MessageBody);
        const groupId = typeof input.MessageGroupId === 'string' ? input.MessageGroupId : undefined;
        const id = queue.send(body, Number(input.DelaySeconds ?? 0), groupId);
        return this.#reply(response, 200, '1.0', { MessageId: id, MD5OfMessageBody: md5(body) });
      }
      case 'SendMessageBatch': {
        const entries =
          (input.Entries as { Id: string; MessageBody: string; DelaySeconds?: number; MessageGroupId?: string }[]) ??
          [];
        const Successful = entries.map((entry) => ({
          Id: entry.Id,
          MessageId: queue.send(entry.MessageBody, entry.DelaySeconds ?? 0, entry.MessageGroupId),
          MD5OfMessageBody: md5(entry.MessageBody),
        }));
        return this.#reply(response, 200, '1.0', { Successful, Failed: [] });
      }
      case 'ChangeMessageVisibility':
        queue.changeVisibility(String(input.ReceiptHandle), Number(input.VisibilityTimeout ?? 0));
        return this.#reply(response, 200, '1.0', {});
      case 'GetQueueAttributes':
        return this.#reply(response, 200, '1.0', { Attributes: this.#attributes(queue) });
      case 'ReceiveMessage': {
        const max = Math.min(10, Math.max(1, Number(input.MaxNumberOfMessages ?? 1)));
        const visibility = input.VisibilityTimeout === undefined ? undefined : Number(input.VisibilityTimeout);
        const Messages = queue.receive(max, visibility).map((record) => ({
          MessageId: record.messageId,
          ReceiptHandle: record.receiptHandle,
          MD5OfBody: record.md5OfBody,
          Body: record.body,
          Attributes: record.attributes,
        }));
        return this.#reply(response, 200, '1.0', { Messages });
      }
      case 'DeleteMessage':
        queue.delete(String(input.ReceiptHandle));
        return this.#reply(response, 200, '1.0', {});
      default:
        return this.#reply(response, 400, '1.0', { __type: 'UnsupportedOperation', message: operation });
    }
  }

  /**
   * SQS's attributes, plus ApproximateAgeOfOldestMessage (seconds): on AWS a CloudWatch metric of the queue, here
   * read from the queue itself so that `wpcrm status` needs no metrics service.
   */
  #attributes(queue: LocalQueue): Record<string, string> {
    const { visible, notVisible } = queue.counts();
    const oldest = queue.oldestEnqueuedAt();
    const { deadLetterQueue, maxReceiveCount } = queue.options;
    return {
      QueueArn: queue.arn,
      ApproximateNumberOfMessages: String(visible),
      ApproximateNumberOfMessagesNotVisible: String(notVisible),
      ApproximateAgeOfOldestMessage: String(oldest === undefined ? 0 : Math.floor((Date.now() - oldest) / 1000)),
      ...(deadLetterQueue
        ? { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: deadLetterQueue.arn, maxReceiveCount }) }
        : {}),
    };
  }

  #reply(
    response: ServerResponse,
    status: number,
    version: '1.0' | '1.1',
    body: unknown,
    headers: Record<string, string> = {},
  ) {
    response.writeHead(status, { 'content-type': `application/x-amz-json-${version}`, ...headers });
    response.end(JSON.stringify(body));
  }

  /**
   * A refused request, as AWS's JSON services answer it (403 with `__type`: EventBridge's error names) and, for SQS,
   * with the query-compatible code in `x-amzn-query-error` that its SDK reads first.
   */
  #refuse(response: ServerResponse, target: string, kind: GuardRefusal, reason: string) {
    const [json, query] = REFUSALS[kind];
    const sqs = target.startsWith('AmazonSQS.');
    const headers: Record<string, string> = { 'x-amzn-errortype': json };
    if (sqs) headers['x-amzn-query-error'] = `${query};Sender`;
    this.#reply(response, 403, sqs ? '1.0' : '1.1', { __type: json, message: reason }, headers);
  }
}

/** Each refusal's AWS JSON error name and SQS query error code. */
const REFUSALS: Record<GuardRefusal, [json: string, query: string]> = {
  origin: ['AccessDeniedException', 'AccessDenied'],
  host: ['AccessDeniedException', 'AccessDenied'],
  unsigned: ['MissingAuthenticationTokenException', 'MissingAuthenticationToken'],
  'unknown-key': ['UnrecognizedClientException', 'InvalidClientTokenId'],
  invalid: ['InvalidSignatureException', 'SignatureDoesNotMatch'],
};
