/**
 * `@gym-bridge/cdk`: the CDK part of subscribing to the gym-bridge bus from another repository,
 * built into a package of its own by `npm run build:events` (dist/cdk, beside dist/events;
 * event-tooling/build-cdk-package.ts), at the bridge's version:
 *
 * - `BridgeSubscription`, `bridgePattern`, `subscriptionSpec`, `toEventPatternJson` and the types of
 *   a detail pattern (./constructs/bridge-subscription.ts): rules the compiler checks against the
 *   event catalog;
 * - `bridgeBusOfStage`, `bridgeStageNames`, `bridgeSchemaName`, `bridgeSchemaArn`
 *   (./constructs/bridge-lookup.ts): a stage's bus, source and schema registry.
 *
 * Peer dependencies: `@gym-bridge/events` of the same version (the catalog's types), `aws-cdk-lib`
 * 2 and `constructs` 10. In this repository it is imported as `@gym-bridge/cdk` (tsconfig `paths`,
 * vitest alias), as examples/payment-issue-notifier does.
 */
export {
  BRIDGE_STAGES,
  type BridgeBus,
  type BridgeLookupProps,
  type BridgeStage,
  type BridgeStageNames,
  bridgeBusOfStage,
  bridgeEventSource,
  bridgeSchemaArn,
  bridgeSchemaName,
  bridgeStageNames,
} from './constructs/bridge-lookup';
export {
  type AnyFieldPattern,
  type BridgeBusLike,
  type BridgePatternSpec,
  BridgeSubscription,
  type BridgeSubscriptionProps,
  bridgePattern,
  type CommonDetail,
  type DetailPattern,
  type ExistsMatcher,
  type FieldPattern,
  type LeafOption,
  type NumberMatcher,
  type NumericRange,
  type ObjectPattern,
  type StringMatcher,
  subscriptionSpec,
  toEventPatternJson,
} from './constructs/bridge-subscription';
