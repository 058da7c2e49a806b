import type {
  GroupRequest,
  GroupRequestError,
  GroupRequestStatus,
  RequestHold,
} from '#shared/domain/groups/group-request';

/** Where a Meta request_id points: our request, and the number it was made from. */
export interface NetworkRequestLink {
  networkRequestId: string;
  orgId: string;
  requestId: string;
  phoneNumberId: string;
}

export interface GroupRequestStore {
  /** Stores a new request; the id must be new. */
  /** Stores a new request; false when one with its id exists (a retry of the call that stored it). */
  create(request: GroupRequest): Promise<boolean>;
  get(orgId: string, requestId: string): Promise<GroupRequest | undefined>;
  /**
   * Moves a request from one of `from` to `to` with the given changes, in one conditional write.
   * Returns the updated request, or undefined when the request was not in `from` (nothing changed).
   */
  transition(
    orgId: string,
    requestId: string,
    from: GroupRequestStatus[],
    to: GroupRequestStatus,
    changes: { now: string; chatId?: string; inviteLink?: string; error?: GroupRequestError; submittedAt?: string },
  ): Promise<GroupRequest | undefined>;
  /** Sets or clears `submittedAt` while the request is `creating` and the marker is still `expected`. */
  markSubmission(
    orgId: string,
    requestId: string,
    expected: string | undefined,
    next: string | undefined,
    now: string,
  ): Promise<boolean>;
  /**
   * Puts a `creating` request on hold: clears the submission marker `expected` (the call certainly had no effect)
   * and records why, in one conditional write. False when another run moved the marker on.
   */
  putOnHold(orgId: string, requestId: string, expected: string, hold: RequestHold): Promise<boolean>;
  /** Records Meta's request_id on a `creating` request (and ends a hold). */
  setNetworkRequestId(orgId: string, requestId: string, networkRequestId: string, now: string): Promise<void>;
  /** Stamps the final state's event as published. */
  markPublished(orgId: string, requestId: string, now: string): Promise<void>;
  /** Requests still open, oldest first. */
  listOpen(limit: number): Promise<GroupRequest[]>;
  /** Final requests whose event was not published yet. */
  listUnpublished(limit: number): Promise<GroupRequest[]>;

  linkNetworkRequest(link: NetworkRequestLink): Promise<void>;
  findNetworkRequest(networkRequestId: string): Promise<NetworkRequestLink | undefined>;
  /**
   * Keeps a confirmation that arrived before its request_id was known, with the organisation that owns the number it
   * was reported for (CONTRACT §25: it is kept with that organisation's data).
   */
  holdConfirmation(orgId: string, networkRequestId: string, notification: unknown, now: Date): Promise<void>;
  heldConfirmation(orgId: string, networkRequestId: string): Promise<unknown | undefined>;
}
