/**
 * The stack's event bus and what it routes: the archive, one registry schema per detail-type (the
 * catalog's), and the example rules (prospects to the marketing queue, PaymentIssue and club health
 * to the operations topic, the e-mail summary that reads no member data), left out when disabled.
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALL_DETAIL_TYPES, DETAIL_TYPES, eventJsonSchema } from '../../lambdas/events/catalog';
import { registrySchemaName } from '../../lib/constructs/event-bus';
import { ALARM_EMAIL, devTemplate, getAtt, prodTemplate } from './stack-fixture';
import { onlyResource, type Resource, synthTemplate } from './support';

let prod: Template;
let dev: Template;

beforeAll(() => {
  prod = prodTemplate();
  dev = devTemplate();
});

describe('event bus', () => {
  it('has an archive of everything on the bus', () => {
    prod.hasResourceProperties('AWS::Events::Archive', {
      SourceArn: getAtt(onlyResource(prod, 'AWS::Events::EventBus').id),
      RetentionDays: 90,
      EventPattern: { account: [{ Ref: 'AWS::AccountId' }] },
    });
  });

  it('registers one draft-04 schema per detail-type whose detail is the catalog schema', () => {
    const schemas = Object.values(prod.findResources('AWS::EventSchemas::Schema')) as Resource[];
    expect(schemas.map((s) => s.Properties.SchemaName).sort()).toEqual(
      ALL_DETAIL_TYPES.map((t) => registrySchemaName('gym-bridge', t)).sort(),
    );
    for (const detailType of ALL_DETAIL_TYPES) {
      const schema = schemas.find(
        (s) => s.Properties.SchemaName === registrySchemaName('gym-bridge', detailType),
      )!;
      expect(schema.Properties.Type).toBe('JSONSchemaDraft4');
      const content = JSON.parse(String(schema.Properties.Content));
      expect(content.$schema).toBe('http://json-schema.org/draft-04/schema#');
      expect(content.properties['detail-type'].enum).toEqual([detailType]);
      expect(content.properties.source.enum).toEqual(['gym-bridge']);
      const { $schema: _s, title: _t, ...detail } = eventJsonSchema(detailType);
      expect(content.properties.detail).toEqual(detail);
    }
  });
});

describe('example rules', () => {
  it('route prospect events to the marketing queue', () => {
    prod.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['gym-bridge'],
        'detail-type': [DETAIL_TYPES.ProspectCreated, DETAIL_TYPES.ProspectStatusChanged],
      },
      Targets: [Match.objectLike({ DeadLetterConfig: Match.anyValue() })],
    });
  });

  it('e-mail PaymentIssue members as a summary that reads no member data, the whole event only with exampleRulesEmailDetail=full', () => {
    const rule = onlyResource(prod, 'AWS::Events::Rule', (p) =>
      JSON.stringify(p.EventPattern).includes(DETAIL_TYPES.MemberStatusChanged),
    );
    const operationsTopic = onlyResource(
      prod,
      'AWS::SNS::Topic',
      (p) => p.DisplayName === 'gym-bridge operations',
    );
    prod.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: Match.objectLike({ detail: { status: ['PaymentIssue'] } }),
      Targets: [
        Match.objectLike({
          Arn: { Ref: operationsTopic.id },
          InputTransformer: {
            InputPathsMap: {
              'detail-clubId': '$.detail.clubId',
              'detail-subject-memberNumber': '$.detail.subject.memberNumber',
              'detail-previousStatus': '$.detail.previousStatus',
              'detail-status': '$.detail.status',
              'detail-occurredAt': '$.detail.occurredAt',
              'detail-eventId': '$.detail.eventId',
            },
            InputTemplate: Match.stringLikeRegexp(
              'member number: <detail-subject-memberNumber>[\\s\\S]*<detail-previousStatus> -> <detail-status>[\\s\\S]*look the member up by club and member number',
            ),
          },
          DeadLetterConfig: Match.anyValue(),
        }),
      ],
    });
    // Exactly those six paths, and a template that substitutes nothing else (no <aws.events.event>).
    const transformer = (
      rule.resource.Properties.Targets as { InputTransformer: Record<string, unknown> }[]
    )[0]!.InputTransformer;
    const template = String(transformer.InputTemplate);
    expect([...template.matchAll(/<([^>]+)>/g)].map((m) => m[1]).sort()).toEqual([
      'detail-clubId',
      'detail-eventId',
      'detail-occurredAt',
      'detail-previousStatus',
      'detail-status',
      'detail-subject-memberNumber',
    ]);
    expect(JSON.stringify(transformer)).not.toMatch(/\$\.detail\.data|"\$\.detail"|"\$"/);

    // The whole event only when the stage asks for it.
    const full = synthTemplate({
      stage: 'prod',
      alarmEmail: ALARM_EMAIL,
      exampleRulesEmailDetail: 'full',
    }).template;
    full.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: Match.objectLike({ detail: { status: ['PaymentIssue'] } }),
      Targets: [Match.objectLike({ InputTransformer: Match.absent(), Input: Match.absent() })],
    });
  });

  it('route PaymentIssue and club health events to the operations topic', () => {
    prod.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['gym-bridge'],
        'detail-type': [DETAIL_TYPES.MemberStatusChanged],
        detail: { status: ['PaymentIssue'] },
      },
    });
    prod.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        'detail-type': Match.arrayWith([
          DETAIL_TYPES.ClubCredentialsRejected,
          DETAIL_TYPES.ClubDataStale,
          DETAIL_TYPES.ClubQuotaLow,
          DETAIL_TYPES.ClubSourceUnavailable,
        ]),
      },
    });
  });

  it('are left out when disabled', () => {
    // The one rule left is the webhook delivery's, deployed in every stage.
    const rules = Object.keys(dev.findResources('AWS::Events::Rule'));
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatch(/^Webhooks/);
  });
});
