import { DynamoReportScheduleStore } from '#shared/adapters/dynamodb/report-schedule-store';
import { deleteReportSchedule, getReportSchedule, updateReportSchedule } from '#shared/domain/reports/report-schedules';
import { scheduleView } from '#shared/domain/reports/schedule';
import { systemClock } from '#shared/ports/clock';
import { type Command, command } from './command.ts';
import { invalid } from './errors.ts';
import type { Target } from './target.ts';

const ORG_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SCHEDULE_ID = /^rsc_[0-9A-Z]{26}$/;
const ORG = { value: '<orgId>', required: true } as const;
const SCHEDULE = { value: '<scheduleId>', required: true } as const;

function ids(flags: { org: string; schedule?: string }) {
  if (!ORG_ID.test(flags.org)) throw invalid('--org must be an organisation id (a lowercase UUID)');
  if (flags.schedule !== undefined && !SCHEDULE_ID.test(flags.schedule)) {
    throw invalid('--schedule must be a report schedule id (rsc_ and 26 characters)');
  }
  return { orgId: flags.org, scheduleId: flags.schedule ?? '' };
}

const store = (target: Target) => new DynamoReportScheduleStore(target.db, target.tableName);

const setStatus =
  (status: 'active' | 'paused') => async (flags: { org: string; schedule: string }, connect: () => Promise<Target>) =>
    updateReportSchedule({ clock: systemClock, schedules: store(await connect()) }, { ...ids(flags), status });

/** `wpcrm report-schedule …` (CONTRACT §23): an organisation's report schedules, as the API shows them. */
export const SCHEDULE_COMMANDS: Record<string, Command> = {
  'report-schedule list': command({
    summary: "List an organisation's report schedules (every page), oldest first.",
    flags: { org: ORG },
    run: async (flags, connect) => {
      const { orgId } = ids(flags);
      const schedules = store(await connect());
      const all = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await schedules.list(orgId, { limit: 100, startKey });
        all.push(...page.items.map(scheduleView));
        startKey = page.nextKey;
      } while (startKey);
      return { schedules: all };
    },
  }),

  'report-schedule show': command({
    summary: 'Show one report schedule, with its next and last run.',
    flags: { org: ORG, schedule: SCHEDULE },
    run: async (flags, connect) => getReportSchedule({ schedules: store(await connect()) }, ids(flags)),
  }),

  'report-schedule pause': command({
    summary: 'Pause a report schedule: it runs nothing until resumed.',
    flags: { org: ORG, schedule: SCHEDULE },
    run: setStatus('paused'),
  }),

  'report-schedule resume': command({
    summary: 'Resume a paused report schedule from its next occurrence (missed ones are not replayed).',
    flags: { org: ORG, schedule: SCHEDULE },
    run: setStatus('active'),
  }),

  'report-schedule delete': command({
    summary: 'Delete a report schedule (the reports it requested stay). Prints {"scheduleId","deleted":true}.',
    flags: { org: ORG, schedule: SCHEDULE },
    run: async (flags, connect) => {
      const { orgId, scheduleId } = ids(flags);
      await deleteReportSchedule({ schedules: store(await connect()) }, { orgId, scheduleId });
      return { scheduleId, deleted: true };
    },
  }),
};
