/**
 * Where club credentials live: one Secrets Manager secret per club, named `<prefix><clubId>`,
 * created by the operator with `clubs add` (never by CloudFormation, so credentials never pass
 * through a template). This construct only fixes the prefix and grants read access to it.
 */
import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { ENV } from '../../lambdas/common/deployment-contract';

export interface ClubSecretsProps {
  /**
   * Name prefix of the club secrets, ending in `/` so that no other secret can share it.
   * @default 'gym-bridge/clubs/'
   */
  readonly secretNamePrefix?: string;
}

export class ClubSecretsPrefixError extends Error {
  override readonly name = 'ClubSecretsPrefixError';
}

/** Secret names: letters, digits and `/_+=.@-` (Secrets Manager's rule). */
const SECRET_NAME_PREFIX = /^[A-Za-z0-9/_+=.@-]+\/$/;

export class ClubSecrets extends Construct {
  public readonly secretNamePrefix: string;
  /**
   * ARN pattern matching every club secret (`...:secret:<prefix>*`): the `*` also covers the
   * six-character suffix Secrets Manager appends to each secret's ARN.
   */
  public readonly secretArnPattern: string;

  constructor(scope: Construct, id: string, props: ClubSecretsProps = {}) {
    super(scope, id);
    const prefix = props.secretNamePrefix ?? 'gym-bridge/clubs/';
    if (!SECRET_NAME_PREFIX.test(prefix)) {
      throw new ClubSecretsPrefixError(
        `club secret prefix '${prefix}' must end with '/' and use only letters, digits and /_+=.@-`,
      );
    }
    this.secretNamePrefix = prefix;
    this.secretArnPattern = Stack.of(this).formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${prefix}*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
  }

  /**
   * `secretsmanager:GetSecretValue` on the club secrets only, plus `CLUB_SECRET_PREFIX`. There is no
   * L2 grant for "every secret under a prefix" (the secrets do not exist at deploy time), hence the
   * one written statement. Secrets use the default `aws/secretsmanager` key: no `kms:` grant needed.
   */
  grantReadTo(fn: lambda.Function): void {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'ReadClubSecrets',
        actions: ['secretsmanager:GetSecretValue'],
        resources: [this.secretArnPattern],
      }),
    );
    fn.addEnvironment(ENV.clubSecretPrefix, this.secretNamePrefix);
    // The grant lands in the role's default policy: acknowledge it there, not on the whole function.
    if (fn.role)
      Validations.of(fn.role).acknowledge({
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::${this.#nagResource()}]`,
        reason:
          'Club secrets are created after deployment by `clubs add` (one per club, names unknown here) and each secret ARN ends in a random suffix: the prefix wildcard is the narrowest grant possible.',
      });
  }

  /** The secret ARN pattern as cdk-nag renders it. */
  #nagResource(): string {
    return `arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${this.secretNamePrefix}*`;
  }
}
