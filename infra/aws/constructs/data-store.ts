import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { TABLE_INDEXES, TABLE_KEYS, TTL_ATTRIBUTE } from '#shared/adapters/dynamodb/table';

export interface DataStoreProps {
  /**
   * Removal policy of the table and the bucket. With DESTROY the bucket empties itself on deletion and the table
   * has no deletion protection.
   * @default RemovalPolicy.RETAIN
   */
  removalPolicy?: RemovalPolicy;
  /**
   * How long reports are kept (REPORT_RETENTION_SECONDS): the sweeper deletes each file at its expiresAt; the
   * bucket's lifecycle rule, a day later, is the backstop.
   * @default 604800 (7 days)
   */
  reportRetentionSeconds?: number;
}

/** Whole days for the bucket's expiration rule: the retention rounded up, and a day on top. */
export const reportExpirationDays = (retentionSeconds: number) => Math.ceil(retentionSeconds / 86_400) + 1;

/** The service's state: the single table (shared/adapters/dynamodb/table.ts), the reports bucket and the bus. */
export class DataStore extends Construct {
  readonly table: TableV2;
  readonly reports: Bucket;
  readonly bus: EventBus;

  constructor(scope: Construct, id: string, props: DataStoreProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const disposable = removalPolicy === RemovalPolicy.DESTROY;
    const key = (name: string) => ({ name, type: AttributeType.STRING });

    this.table = new TableV2(this, 'Table', {
      partitionKey: key(TABLE_KEYS.partitionKey),
      sortKey: key(TABLE_KEYS.sortKey),
      globalSecondaryIndexes: TABLE_INDEXES.map((index) => ({
        indexName: index.indexName,
        partitionKey: key(index.partitionKey),
        sortKey: key(index.sortKey),
      })),
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TTL_ATTRIBUTE,
      deletionProtection: !disposable,
      removalPolicy,
    });

    this.reports = new Bucket(this, 'Reports', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      lifecycleRules: [
        {
          id: 'ExpiredReports',
          expiration: Duration.days(reportExpirationDays(props.reportRetentionSeconds ?? 604_800)),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      removalPolicy,
      autoDeleteObjects: disposable,
    });
    Validations.of(this.reports).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'Short-lived report exports, read through pre-signed URLs the API issues and logs; no access log bucket.',
    });

    this.bus = new EventBus(this, 'Bus', { description: 'wp-crm domain events (group.*, report.*)' });
  }
}
