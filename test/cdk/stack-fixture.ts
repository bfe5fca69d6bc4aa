/**
 * The apps the stack-*.test.ts files assert on (prod with an alarm address, dev, a 50,000-club
 * fleet) and their small template helpers. Each app comes from `synthTemplate` (./support.ts), so it
 * is synthesized once a test run however many of these files read it; a file asks only for the
 * apps it reads.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { type Resource, synthTemplate } from './support';

export const ALARM_EMAIL = 'ops@example.com';

export const prodTemplate = (): Template =>
  synthTemplate({ stage: 'prod', alarmEmail: ALARM_EMAIL }).template;

export const devTemplate = (): Template =>
  synthTemplate({ stage: 'dev', exampleRules: 'false', pollRateMinutes: '2' }).template;

// The table quota raised (docs/deploy.md, "State table capacity"): 50,000 clubs' first hour needs it.
export const fleetTemplate = (): Template =>
  synthTemplate({ stage: 'prod', clubs: '50000', tableMaxUnits: '80000' }).template;

export const getAtt = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
export const envOf = (fn: Resource) =>
  (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
