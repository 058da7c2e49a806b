import type { TimeBound } from '#shared/domain/reports/filters';
import type { ChatRecord, ContactRecord, CrmRecord, RecordOf, ReportType } from '#shared/domain/reports/records';

/** The organisation's CRM records (CONTRACT §9), as reports read them. */
export interface CrmStore {
  /**
   * Upserts records in batches (retrying unprocessed items) and keeps the contact → chats edges current.
   * `onProgress` is called with the number written so far.
   */
  putRecords(orgId: string, records: CrmRecord[], onProgress?: (written: number) => void): Promise<void>;
  /** Records of a kind within the range on its time field, newest first (ties by id descending), page by page. */
  pages<T extends ReportType>(
    orgId: string,
    type: T,
    range: { lower?: TimeBound; upper?: TimeBound },
    pageSize: number,
  ): AsyncGenerator<RecordOf<T>[]>;
  getChats(orgId: string, chatIds: string[]): Promise<ChatRecord[]>;
  getContacts(orgId: string, contactIds: string[]): Promise<ContactRecord[]>;
  /** For each contact id, the chats that list it. */
  chatIdsOfContacts(orgId: string, contactIds: string[]): Promise<Map<string, string[]>>;
}
