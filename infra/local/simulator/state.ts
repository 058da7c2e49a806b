import { GraphFailure } from './meta.ts';
import {
  type DeleteScript,
  type Group,
  type GroupScript,
  type GroupView,
  groupView,
  type Message,
  type MessageView,
  type SettingsScript,
  SimulatorError,
} from './types.ts';

/** What the simulated Meta holds: groups and sent messages per phone-number id, and the scripted outcomes. */
export class SimulatorState {
  readonly groups = new Map<string, Group>();
  readonly messages = new Map<string, Message>();
  /** Outcomes of the next creates, FIFO. */
  readonly groupScripts: GroupScript[] = [];
  /** Outcomes of the next settings updates, FIFO. */
  readonly settingsScripts: SettingsScript[] = [];
  /** Outcomes of the next group deletions, FIFO. */
  readonly deleteScripts: DeleteScript[] = [];

  groupViews(phoneNumberId?: string): GroupView[] {
    return [...this.groups.values()]
      .filter((group) => phoneNumberId === undefined || group.phoneNumberId === phoneNumberId)
      .map(groupView);
  }

  messageViews(): MessageView[] {
    return [...this.messages.values()].map((message) => ({
      ...message,
      createdAt: new Date(message.createdAt * 1000).toISOString(),
    }));
  }

  /** A group named in a Graph call: unknown → Meta's 131041. */
  graphGroup(groupId: string): Group {
    const group = this.groups.get(groupId);
    if (!group) throw new GraphFailure(400, 131041);
    return group;
  }

  /** A group named in a control call: unknown → 404. */
  requireGroup(groupId: string): Group {
    const group = this.groups.get(groupId);
    if (!group) throw new SimulatorError(404, `no group ${groupId}`, 131041);
    return group;
  }

  clear(): void {
    this.groups.clear();
    this.messages.clear();
    this.groupScripts.length = 0;
    this.settingsScripts.length = 0;
    this.deleteScripts.length = 0;
  }
}
