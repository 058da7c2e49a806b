import {
  type JoinRequestOutcome,
  type MessagingNetwork,
  type NetworkChannel,
  NetworkError,
  type NetworkGroup,
} from '#shared/ports/messaging-network';

type CreateScript = 'ok' | 'not-sent' | 'ambiguous-before' | 'ambiguous-after' | { rejected: number; message: string };

/**
 * A scripted MessagingNetwork for use-case tests: `createScript` decides each createGroup call in turn
 * ('ambiguous-after' makes the group and then loses the answer, like a timeout after commit).
 */
export class FakeNetwork implements MessagingNetwork {
  readonly callTimeoutSeconds = 5;
  createScript: CreateScript[] = [];
  createCalls = 0;
  groups: (NetworkGroup & { requestId: string })[] = [];
  deleted: string[] = [];
  sent: { to: unknown; text: string }[] = [];
  sendScript: ('ok' | 'not-sent' | 'ambiguous' | { rejected: number; message: string })[] = [];

  /** Ids are unique per fake, since tests share one table. */
  readonly prefix = Math.random().toString(36).slice(2, 10);

  constructor(private readonly now: () => Date = () => new Date()) {}

  requestIdOf(call: number) {
    return `${this.prefix}-req-${call}`;
  }

  groupIdOf(call: number) {
    return `${this.prefix}-G${call}`;
  }

  async createGroup(_: NetworkChannel, input: { subject: string }) {
    this.createCalls += 1;
    const step = this.createScript.shift() ?? 'ok';
    if (step === 'not-sent') throw new NetworkError('not-sent', 'rate limited', { code: 131208, httpStatus: 429 });
    if (step === 'ambiguous-before') throw new NetworkError('ambiguous', 'HTTP 500', { httpStatus: 500 });
    if (typeof step === 'object')
      throw new NetworkError('rejected', step.message, { code: step.rejected, httpStatus: 400 });
    const requestId = this.requestIdOf(this.createCalls);
    this.groups.push({
      groupId: this.groupIdOf(this.createCalls),
      subject: input.subject,
      createdAt: this.now().toISOString(),
      requestId,
    });
    if (step === 'ambiguous-after') throw new NetworkError('ambiguous', 'timed out after sending');
    return { networkRequestId: requestId };
  }

  async listGroups() {
    return this.groups.filter((group) => !this.deleted.includes(group.groupId));
  }

  settingsUpdates: { groupId: string; settings: { subject?: string; description?: string } }[] = [];

  async updateGroupSettings(_: NetworkChannel, groupId: string, settings: { subject?: string; description?: string }) {
    this.settingsUpdates.push({ groupId, settings });
  }

  async deleteGroup(_: NetworkChannel, groupId: string) {
    this.deleted.push(groupId);
  }

  async getInviteLink(_: NetworkChannel, groupId: string) {
    return `https://chat.whatsapp.com/${groupId}`;
  }

  async resetInviteLink(_: NetworkChannel, groupId: string) {
    return `https://chat.whatsapp.com/${groupId}-new`;
  }

  async sendText(_: NetworkChannel, to: { groupId: string } | { phoneNumber: string }, text: string) {
    const step = this.sendScript.shift() ?? 'ok';
    if (step === 'not-sent') throw new NetworkError('not-sent', 'refused');
    if (step === 'ambiguous') throw new NetworkError('ambiguous', 'timeout');
    if (typeof step === 'object') throw new NetworkError('rejected', step.message, { code: step.rejected });
    this.sent.push({ to, text });
    return { networkMessageId: `wamid.${this.sent.length}` };
  }

  async sendGroupInvite() {
    return { networkMessageId: `wamid.invite.${Math.random()}` };
  }

  async removeParticipants() {}

  async approveJoinRequests(_: NetworkChannel, __: string, ids: string[]): Promise<JoinRequestOutcome> {
    return { succeeded: ids, failed: [] };
  }

  async rejectJoinRequests(_: NetworkChannel, __: string, ids: string[]): Promise<JoinRequestOutcome> {
    return { succeeded: ids, failed: [] };
  }
}
