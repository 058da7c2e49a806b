/**
 * The business counts the functions emit in CloudWatch's embedded metric format (CONTRACT §17): one namespace, the
 * dimension `service`, one metric per outcome. The dashboard, `wpcrm status` and the emitters share these names.
 */
export const METRICS_NAMESPACE = 'WpCrm';
export const METRICS_SERVICE = 'wp-crm';

export const BUSINESS_METRICS = {
  groupsCreated: 'GroupsCreated',
  groupsFailed: 'GroupsFailed',
  reportsCompleted: 'ReportsCompleted',
  reportsFailed: 'ReportsFailed',
  deliveriesSucceeded: 'DeliveriesSucceeded',
  deliveriesFailed: 'DeliveriesFailed',
} as const;

export type BusinessCount = keyof typeof BUSINESS_METRICS;
