import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { NotificationInbox } from '#shared/ports/notification-inbox';

/** SQS's largest message body (256 KiB), less room for the envelope. */
export const MAX_INBOX_MESSAGE_BYTES = 256 * 1024 - 1024;

/**
 * The inbox as the notification queue: one message per notification, `{"kind":"notification","receivedAt":<ISO
 * 8601>,"notification":<the text as Meta sent it>}` — the verified text is written into the envelope unchanged (it is JSON already), so no
 * number or string in it is re-encoded. A notification too large for one message is split by its entries and
 * changes (each part a notification of its own; every change is applied on its own anyway). No MessageGroupId: the
 * worker learns each change's organisation and forwards it in that organisation's group.
 */
export class SqsNotificationInbox implements NotificationInbox {
  constructor(
    private readonly client: SQSClient,
    private readonly url: () => string,
  ) {}

  async keep(notificationText: string, receivedAt: Date): Promise<void> {
    const head = `{"kind":"notification","receivedAt":"${receivedAt.toISOString()}","notification":`;
    for (const part of splitNotification(notificationText, MAX_INBOX_MESSAGE_BYTES - 48 - head.length)) {
      await this.client.send(new SendMessageCommand({ QueueUrl: this.url(), MessageBody: `${head}${part}}` }));
    }
  }
}

/**
 * The notification as one text when it fits `maxBytes`, else as several notifications of one change each (a change
 * that alone exceeds the limit cannot be kept: it is dropped with the reason thrown, which Meta sees as 5xx).
 */
export function splitNotification(text: string, maxBytes: number): string[] {
  if (Buffer.byteLength(text) <= maxBytes) return [text];
  const notification = JSON.parse(text) as { entry?: unknown };
  const entries = Array.isArray(notification.entry) ? notification.entry : [];
  const parts: string[] = [];
  for (const entry of entries) {
    const { changes, ...rest } = (entry ?? {}) as { changes?: unknown };
    for (const change of Array.isArray(changes) ? changes : []) {
      const part = JSON.stringify({ ...notification, entry: [{ ...rest, changes: [change] }] });
      if (Buffer.byteLength(part) > maxBytes)
        throw new Error(`a notification change of ${part.length} bytes exceeds the queue's message size`);
      parts.push(part);
    }
  }
  return parts;
}
