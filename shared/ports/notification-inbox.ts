/**
 * Where the internet-facing network webhook keeps a verified notification from Meta, as received, for a worker the
 * internet cannot reach to apply (CONTRACT §21). The webhook holds no organisation's data: it cannot tell whose a
 * notification is, so what it keeps belongs to no organisation yet.
 */
export interface NotificationInbox {
  /**
   * Keeps one verified notification (its JSON text) with the time it was received; when this resolves, it is durable
   * and Meta may be answered.
   */
  keep(notificationText: string, receivedAt: Date): Promise<void>;
}

/** The queue behind the inbox (shared/events/catalog.ts). */
export const NETWORK_NOTIFICATIONS_QUEUE = 'network-notifications';
