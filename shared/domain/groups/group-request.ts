/** A request to create a group chat (CONTRACT §4): pending → creating → created | failed; never backwards. */
export type GroupRequestStatus = 'pending' | 'creating' | 'created' | 'failed';

export const OPEN_STATUSES: GroupRequestStatus[] = ['pending', 'creating'];

export interface GroupRequestError {
  code: string;
  message: string;
}

/** Why and since when a request waits for an operator. */
export interface RequestHold {
  code: string;
  message: string;
  since: string;
}

export interface GroupRequest {
  requestId: string;
  orgId: string;
  channelId: string;
  subject: string;
  description?: string;
  requireJoinApproval: boolean;
  status: GroupRequestStatus;
  chatId?: string;
  inviteLink?: string;
  error?: GroupRequestError;
  /** Meta's request_id, once the create call was answered. */
  networkRequestId?: string;
  /** When the last create call was sent; set while its outcome is unknown, cleared when it certainly failed. */
  submittedAt?: string;
  /**
   * Set while the network refuses the channel itself (access token invalid, 190; number restricted, 368): the
   * request waits for an operator instead of failing or retrying at once (RELIABILITY H-3); cleared once a create
   * call is answered.
   */
  onHold?: RequestHold;
  createdAt: string;
  updatedAt: string;
  /** When the final state's event was published; absent until then (the sweeper republishes). */
  publishedAt?: string;
}

/** The chat of a group request has an id derived from the request's, so storing it twice is harmless. */
export const chatIdFor = (requestId: string) => `cht_${requestId.replace(/^grq_/, '')}`;

export function statusView(request: GroupRequest) {
  const { requestId, status, channelId, subject, chatId, inviteLink, error, createdAt, updatedAt } = request;
  return { requestId, status, channelId, subject, chatId, inviteLink, error, createdAt, updatedAt };
}
