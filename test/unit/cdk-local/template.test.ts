// biome-ignore-all lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub strings hold ${...} placeholders
import { describe, expect, it } from 'vitest';
import {
  type DeploymentContext,
  type PhysicalResource,
  physicalResources,
  type Template,
  TemplateResolver,
} from '#infra/cdk-local/template';

const ctx: DeploymentContext = {
  stackName: 'WpCrm-dev-Service',
  region: 'eu-west-1',
  account: '000000000000',
  awsEndpoint: 'http://127.0.0.1:4566',
  apiOrigin: 'http://127.0.0.1:3000',
};

const template: Template = {
  Resources: {
    Table: { Type: 'AWS::DynamoDB::Table', Properties: {} },
    NamedTable: { Type: 'AWS::DynamoDB::Table', Properties: { TableName: 'wp-crm-dev' } },
    Queue: { Type: 'AWS::SQS::Queue', Properties: {} },
    Secret: { Type: 'AWS::SecretsManager::Secret', Properties: {} },
    NamedSecret: { Type: 'AWS::SecretsManager::Secret', Properties: { Name: 'wp-crm/dev/whatsapp' } },
    Bus: { Type: 'AWS::Events::EventBus', Properties: { Name: 'wp-crm-dev' } },
    BusRule: { Type: 'AWS::Events::Rule', Properties: { EventBusName: { Ref: 'Bus' } } },
    BusArnRule: { Type: 'AWS::Events::Rule', Properties: { EventBusName: { 'Fn::GetAtt': ['Bus', 'Arn'] } } },
    DefaultBusRule: { Type: 'AWS::Events::Rule', Properties: { ScheduleExpression: 'rate(1 minute)' } },
    Role: { Type: 'AWS::IAM::Role', Properties: {} },
    Fn: { Type: 'AWS::Lambda::Function', Properties: {} },
  },
};

const resolverFor = (resources: Template['Resources'] = template.Resources) =>
  new TemplateResolver(ctx, physicalResources({ Resources: resources }, ctx));

describe('physicalResources', () => {
  it('gives a resource the same name on every call', () => {
    const first = physicalResources(template, ctx);
    const second = physicalResources(template, ctx);

    expect(second).toEqual(first);
    expect(first.get('Table')!.ref).toMatch(/^WpCrm-dev-Service-Table-[0-9A-F]{12}$/);
  });

  it('gives the same logical id a different name in another stack', () => {
    const ours = physicalResources(template, ctx).get('Table')!.ref;
    const theirs = physicalResources(template, { ...ctx, stackName: 'WpCrm-prod-Service' }).get('Table')!.ref;

    expect(theirs).not.toBe(ours);
    expect(theirs.slice(-12)).not.toBe(ours.slice(-12));
  });

  it('keeps a name the template gives and derives the ARN from it', () => {
    const table = physicalResources(template, ctx).get('NamedTable')!;

    expect(table).toEqual({
      ref: 'wp-crm-dev',
      attributes: { Arn: 'arn:aws:dynamodb:eu-west-1:000000000000:table/wp-crm-dev' },
    });
  });

  it('puts a queue URL on the AWS endpoint under the account', () => {
    const queue = physicalResources(template, ctx).get('Queue')!;
    const name = queue.attributes.QueueName!;

    expect(queue.ref).toBe(`http://127.0.0.1:4566/000000000000/${name}`);
    expect(queue.attributes.QueueUrl).toBe(queue.ref);
    expect(queue.attributes.Arn).toBe(`arn:aws:sqs:eu-west-1:000000000000:${name}`);
  });

  it('gives a secret an ARN that ends in a 6-character suffix after its name', () => {
    const physical = physicalResources(template, ctx);

    expect(physical.get('NamedSecret')!.ref).toMatch(
      /^arn:aws:secretsmanager:eu-west-1:000000000000:secret:wp-crm\/dev\/whatsapp-[A-Za-z0-9]{6}$/,
    );
    expect(physical.get('Secret')!.ref).toMatch(
      /^arn:aws:secretsmanager:eu-west-1:000000000000:secret:Secret-[0-9A-F]{12}-[A-Za-z0-9]{6}$/,
    );
  });

  it('names the custom bus in the ARN of a rule on it, whether the rule refers to the bus by name or ARN', () => {
    const physical = physicalResources(template, ctx);
    const rule = physical.get('BusRule')!;

    expect(rule.attributes.Arn).toBe(`arn:aws:events:eu-west-1:000000000000:rule/wp-crm-dev/${rule.ref}`);
    expect(physical.get('BusArnRule')!.attributes.Arn).toBe(
      `arn:aws:events:eu-west-1:000000000000:rule/wp-crm-dev/${physical.get('BusArnRule')!.ref}`,
    );
  });

  it('names no bus in the ARN of a rule on the default bus', () => {
    const rule = physicalResources(template, ctx).get('DefaultBusRule')!;

    expect(rule.attributes.Arn).toBe(`arn:aws:events:eu-west-1:000000000000:rule/${rule.ref}`);
  });
});

describe('TemplateResolver', () => {
  const physical: Map<string, PhysicalResource> = physicalResources(template, ctx);
  const resolver = resolverFor();
  const tableName = physical.get('Table')!.ref;
  const tableArn = physical.get('Table')!.attributes.Arn!;

  it("resolves Ref to a resource's physical id", () => {
    const resolved = resolver.resolve({ TableName: { Ref: 'Table' }, Queue: { Ref: 'Queue' } });

    expect(resolved).toEqual({ TableName: tableName, Queue: physical.get('Queue')!.ref });
  });

  it('resolves Ref to the pseudo parameters', () => {
    const resolved = resolver.resolve([
      { Ref: 'AWS::Region' },
      { Ref: 'AWS::AccountId' },
      { Ref: 'AWS::Partition' },
      { Ref: 'AWS::URLSuffix' },
      { Ref: 'AWS::StackName' },
      { Ref: 'AWS::StackId' },
    ]);

    expect(resolved).toEqual([
      'eu-west-1',
      '000000000000',
      'aws',
      'amazonaws.com',
      'WpCrm-dev-Service',
      expect.stringMatching(/^arn:aws:cloudformation:eu-west-1:000000000000:stack\/WpCrm-dev-Service\/[0-9a-f-]{36}$/),
    ]);
  });

  it('removes a property and a list element that are Ref AWS::NoValue', () => {
    const resolved = resolver.resolve({
      Keep: 'yes',
      Drop: { Ref: 'AWS::NoValue' },
      List: ['a', { Ref: 'AWS::NoValue' }, 'b'],
    });

    expect(resolved).toEqual({ Keep: 'yes', List: ['a', 'b'] });
  });

  it('resolves Fn::GetAtt in its array and its dotted form', () => {
    const resolved = resolver.resolve([{ 'Fn::GetAtt': ['Table', 'Arn'] }, { 'Fn::GetAtt': 'Table.Arn' }]);

    expect(resolved).toEqual([tableArn, tableArn]);
  });

  it('resolves Fn::Join over resolved parts', () => {
    const resolved = resolver.resolve({ 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Table', 'Arn'] }, '/index/*']] });

    expect(resolved).toBe(`${tableArn}/index/*`);
  });

  it('resolves Fn::Sub with resources, attributes and pseudo parameters', () => {
    const resolved = resolver.resolve({ 'Fn::Sub': '${Table} ${Table.Arn} ${AWS::Region}:${AWS::AccountId}' });

    expect(resolved).toBe(`${tableName} ${tableArn} eu-west-1:000000000000`);
  });

  it('resolves Fn::Sub with an explicit variable map whose values are intrinsics', () => {
    const resolved = resolver.resolve({
      'Fn::Sub': ['${Name}/${Where}/${Table}', { Name: 'plain', Where: { Ref: 'AWS::Region' } }],
    });

    expect(resolved).toBe(`plain/eu-west-1/${tableName}`);
  });

  it('leaves ${!Literal} in Fn::Sub as the literal ${Literal}', () => {
    const resolved = resolver.resolve({ 'Fn::Sub': 'arn:${AWS::Partition}:s3:::${!aws:username}/*' });

    expect(resolved).toBe('arn:aws:s3:::${aws:username}/*');
  });

  it('resolves Fn::Select over Fn::Split', () => {
    const resolved = resolver.resolve({
      'Fn::Select': [5, { 'Fn::Split': [':', { 'Fn::GetAtt': ['Table', 'Arn'] }] }],
    });

    expect(resolved).toBe(`table/${tableName}`);
  });

  it('resolves Fn::Select with a list of intrinsics', () => {
    const resolved = resolver.resolve({ 'Fn::Select': ['1', [{ Ref: 'AWS::Region' }, { Ref: 'Table' }]] });

    expect(resolved).toBe(tableName);
  });

  it('gives a value that is not a string as JSON from string()', () => {
    const resolved = resolver.string({ 'Fn::Split': [',', 'a,b'] });

    expect(resolved).toBe('["a","b"]');
  });

  it('throws an error naming an intrinsic function it does not support', () => {
    const resolve = () => resolver.resolve({ Value: { 'Fn::If': ['IsProd', 'a', 'b'] } });

    expect(resolve).toThrow(/Fn::If/);
  });

  it('throws an error naming an attribute it does not know', () => {
    const resolve = () => resolver.resolve({ 'Fn::GetAtt': ['Table', 'StreamArn'] });

    expect(resolve).toThrow(/Table\.StreamArn/);
  });

  it('throws an error naming a resource it does not know', () => {
    expect(() => resolver.resolve({ Ref: 'Missing' })).toThrow(/Missing/);
    expect(() => resolver.resolve({ 'Fn::GetAtt': ['Gone', 'Arn'] })).toThrow(/Gone/);
    expect(() => resolver.resolve({ 'Fn::Sub': '${Absent.Arn}' })).toThrow(/Absent/);
  });
});
