/**
 * The webhook body of a bus event, as the dispatcher delivers it and the event feed serves it (CONTRACT §7, §20):
 * the event's `detail` without its `event_id`, serialised once. Both read it here, so a feed entry's `data` and a
 * delivery's body cannot drift apart; the event id becomes the delivery's `webhook-id` and the feed entry's `eventId`.
 */
export function webhookBodyOf(detail: { event_id?: unknown; [field: string]: unknown }): {
  eventId: string | undefined;
  organisationId: string | undefined;
  body: string;
} {
  const { event_id: eventId, ...body } = detail;
  const organisationId = body.organisation_id;
  return {
    eventId: typeof eventId === 'string' && eventId !== '' ? eventId : undefined,
    organisationId: typeof organisationId === 'string' && organisationId !== '' ? organisationId : undefined,
    body: JSON.stringify(body),
  };
}
