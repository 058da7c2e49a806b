import * as consoleRoutes from './console.ts';
import * as events from './events.ts';
import * as foundation from './foundation.ts';
import * as groups from './groups.ts';
import * as reportSchedules from './report-schedules.ts';
import * as reports from './reports.ts';
import type { RouteDef } from './route.ts';
import * as webhooks from './webhooks.ts';

/** Every route of the API. */
export const ROUTES: RouteDef[] = [
  foundation.issueToken,
  foundation.getJwks,
  foundation.getHealth,
  foundation.getOpenApi,
  foundation.getDocs,
  foundation.getDocsAsset,
  foundation.listChannels,
  ...Object.values(groups),
  ...Object.values(webhooks),
  events.listEvents,
  reports.requestReport,
  reports.listReports,
  reports.getReport,
  reports.downloadReport,
  ...Object.values(reportSchedules),
  consoleRoutes.createConsoleLink,
  consoleRoutes.startConsoleSession,
  consoleRoutes.refreshConsoleSession,
  consoleRoutes.endConsoleSession,
  consoleRoutes.getConsoleOverview,
  consoleRoutes.getConsole,
  // Before `/console/{page}/{id}`: the local front takes the first route that matches (API Gateway the most specific).
  consoleRoutes.getConsoleScript,
  consoleRoutes.getConsoleStyles,
  consoleRoutes.getConsolePage,
  consoleRoutes.getConsolePageItem,
];
