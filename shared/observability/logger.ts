import { Logger } from '@aws-lambda-powertools/logger';

/** The structured JSON logger every function shares (service name from POWERTOOLS_SERVICE_NAME). */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'wp-crm' });
