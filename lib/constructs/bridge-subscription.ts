/**
 * Typed subscriptions to the gym-bridge bus: `bridgePattern({...})` builds an `events.EventPattern`
 * and `new BridgeSubscription(scope, id, {...})` is an `events.Rule` with one. The compiler checks
 * the detail-types (`DetailType`, the catalog's names) and the detail pattern: field paths and value
 * types come from `EventDetail<T>`, the zod-inferred detail, so a typo in a detail-type, in a field
 * path or a value of the wrong type does not compile. The pattern is exactly what one would write by
 * hand (`{ source: [...], detailType: [...], detail: {...} }`): nothing is added.
 *
 * ```ts
 * new BridgeSubscription(this, 'DishonouredPayments', {
 *   eventBus,                                   // events.IEventBus or the bridge's BridgeEventBus
 *   eventSource: 'gym-bridge',                  // @default the BridgeEventBus's source, else 'gym-bridge'
 *   detailType: DETAIL_TYPES.PaymentFailed,     // or a list: ['Payment Failed', 'Payment Refunded']
 *   detail: { reason: ['dishonoured'], amount: [{ numeric: ['>', 0] }] },
 *   targets: [new targets.SqsQueue(queue)],
 * });
 * ```
 *
 * Detail patterns:
 * - nested objects recurse (`detail: { data: { Contact: { State: ['NSW'] } } }`); an array field
 *   takes the pattern of its elements (EventBridge matches any element);
 * - a leaf takes a list of values of the field's type (an enum field takes its members, `null` only
 *   where the field is nullable) and EventBridge matchers: for strings `prefix`, `suffix`,
 *   `equals-ignore-case`, `wildcard`, `anything-but` (values of the field's type, or a
 *   prefix/suffix/equals-ignore-case/wildcard); for numbers `numeric` and `anything-but`; for every
 *   field `exists`; `$or: [pattern, ...]` at any level;
 * - several detail-types: the detail pattern may use only the fields all of them have (their
 *   common keys; a field's value type is the union of its types);
 * - API records in `data` are open objects (unknown fields are kept); the pattern offers only their
 *   known fields, so a misspelt one does not compile. A record with no known fields (Class
 *   Attendance Recorded's raw `data`) takes any field.
 *
 * Check a pattern offline with `matchesEventPattern` (`@gym-bridge/events`) on
 * `toEventPatternJson(pattern)`, or against an account with `aws events test-event-pattern`
 * (docs/deploy.md "Subscribe to events").
 */
// The catalog through `@gym-bridge/events` (tsconfig `paths` here; the package outside): this file
// is also the package `@gym-bridge/cdk` (lib/consumer-cdk.ts), whose types must name that package.
import {
  DEFAULT_EVENT_SOURCE,
  type DetailType,
  type EventDetail,
  type EventPatternJson,
} from '@gym-bridge/events';
import * as events from 'aws-cdk-lib/aws-events';
import type { Construct } from 'constructs';

/**
 * The bridge's bus construct as this construct needs it (BridgeEventBus has this shape). A shape,
 * not the class, so a consumer's CDK program does not compile the bridge's stack to subscribe.
 */
export interface BridgeBusLike {
  readonly eventBus: events.IEventBus;
  readonly eventSource: string;
}

const isBridgeBus = (bus: events.IEventBus | BridgeBusLike): bus is BridgeBusLike =>
  'eventSource' in bus && typeof bus.eventSource === 'string' && 'eventBus' in bus;

// ---------------------------------------------------------------------------------------------
// Types of a detail pattern

type Primitive = string | number | boolean | null;
type IsUnknown<V> = unknown extends V ? true : false;

/** `{ exists: true | false }`: present (a leaf value, null included) or absent. */
export interface ExistsMatcher {
  readonly exists: boolean;
}

type Affix = string | { readonly 'equals-ignore-case': string };

/** EventBridge's string matchers; `anything-but` takes values of the field's type `S`. */
export type StringMatcher<S extends string = string> =
  | { readonly prefix: Affix }
  | { readonly suffix: Affix }
  | { readonly 'equals-ignore-case': string }
  | { readonly wildcard: string }
  | {
      readonly 'anything-but':
        | S
        | readonly S[]
        | { readonly prefix: string }
        | { readonly suffix: string }
        | { readonly 'equals-ignore-case': string | readonly string[] }
        | { readonly wildcard: string | readonly string[] };
    };

type LowerBound = '>' | '>=';
type UpperBound = '<' | '<=';
/** `['=', 5]`, `['>', 0]`, `['<=', 10]` or `['>', 0, '<=', 10]`. */
export type NumericRange =
  | readonly ['=', number]
  | readonly [LowerBound, number]
  | readonly [UpperBound, number]
  | readonly [LowerBound, number, UpperBound, number];

/** EventBridge's number matchers; `anything-but` takes values of the field's type `N`. */
export type NumberMatcher<N extends number = number> =
  | { readonly numeric: NumericRange }
  | { readonly 'anything-but': N | readonly N[] };

/** One entry of a leaf's list: a value of the field's type or a matcher that applies to it. */
export type LeafOption<V> =
  | V
  | ExistsMatcher
  | ([Extract<V, string>] extends [never] ? never : StringMatcher<Extract<V, string>>)
  | ([Extract<V, number>] extends [never] ? never : NumberMatcher<Extract<V, number>>);

/** Any JSON pattern value: for fields typed `unknown` (raw records). */
export type AnyFieldPattern =
  | readonly LeafOption<Primitive>[]
  | { readonly [field: string]: AnyFieldPattern | readonly AnyFieldPattern[] };

type KnownKeys<O> = keyof {
  [K in keyof O as string extends K ? never : number extends K ? never : symbol extends K ? never : K]: 0;
};

/** The pattern of one field whose value type is `V`. */
export type FieldPattern<V> =
  IsUnknown<V> extends true
    ? AnyFieldPattern
    : [Exclude<V, undefined>] extends [readonly (infer E)[]]
      ? FieldPattern<E>
      : [Exclude<V, undefined>] extends [Primitive]
        ? readonly LeafOption<Exclude<V, undefined>>[]
        : [Exclude<V, undefined | null>] extends [object]
          ? ObjectPattern<Exclude<V, undefined | null>>
          : readonly LeafOption<Primitive>[];

/** The pattern of an object: any of its known fields, and `$or` of patterns of it. */
export type ObjectPattern<O> = [KnownKeys<O>] extends [never]
  ? { readonly [field: string]: AnyFieldPattern | readonly AnyFieldPattern[] }
  : { readonly [K in KnownKeys<O> & keyof O]?: FieldPattern<O[K]> } & {
      readonly $or?: readonly ObjectPattern<O>[];
    };

/** The detail the detail-types `T` have in common: the keys all of them have. */
export type CommonDetail<T extends DetailType> = {
  [K in Extract<keyof EventDetail<T>, string>]: EventDetail<T>[K];
};

/** A pattern on `detail` of events of the detail-type(s) `T`. */
export type DetailPattern<T extends DetailType> = ObjectPattern<CommonDetail<T>>;

// ---------------------------------------------------------------------------------------------
// The pattern builder

export interface BridgePatternSpec<T extends DetailType> {
  /** EventBridge `source` of the bridge's events (the stack's `EventSource` output). @default 'gym-bridge' */
  readonly eventSource?: string;
  /** The detail-type, or a list of them (a rule matches any). */
  readonly detailType: T | readonly T[];
  /** A pattern on `detail`, typed from the detail-type(s). @default no condition on detail */
  readonly detail?: DetailPattern<T>;
}

/**
 * The event pattern of a subscription to the bridge's events: `{ source, detailType, detail? }`
 * exactly as written by hand, checked by the compiler against the catalog.
 */
export function bridgePattern<const T extends DetailType>(spec: BridgePatternSpec<T>): events.EventPattern {
  const detailTypes: readonly T[] = typeof spec.detailType === 'string' ? [spec.detailType] : spec.detailType;
  if (detailTypes.length === 0) throw new Error('bridgePattern: detailType is an empty list');
  return {
    source: [spec.eventSource ?? DEFAULT_EVENT_SOURCE],
    detailType: [...detailTypes],
    ...(spec.detail === undefined ? {} : { detail: spec.detail as Record<string, unknown> }),
  };
}

/**
 * A subscription's detail-type(s) and detail pattern as a value, checked like `bridgePattern`'s
 * argument (an identity function: it only gives the object literal its type), to share between
 * `bridgePattern` and `BridgeSubscription`.
 */
export function subscriptionSpec<const T extends DetailType>(
  spec: Omit<BridgePatternSpec<T>, 'eventSource'>,
): Omit<BridgePatternSpec<T>, 'eventSource'> {
  return spec;
}

/** CDK's camelCase keys to EventBridge's JSON names (`detailType` -> `detail-type`); tokens are not resolved. */
export function toEventPatternJson(pattern: events.EventPattern): EventPatternJson {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(pattern)) {
    if (value !== undefined) out[key === 'detailType' ? 'detail-type' : key] = value;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The construct

export interface BridgeSubscriptionProps<T extends DetailType>
  extends Omit<events.RuleProps, 'eventPattern' | 'eventBus'>,
    Omit<BridgePatternSpec<T>, 'eventSource'> {
  /** The bridge's bus: `events.EventBus.fromEventBusName(...)` in a downstream stack, or the bridge's own construct. */
  readonly eventBus: events.IEventBus | BridgeBusLike;
  /** EventBridge `source` of the bridge's events. @default the BridgeEventBus's eventSource, else 'gym-bridge' */
  readonly eventSource?: string;
}

/** An EventBridge rule on the bridge's bus whose pattern is `bridgePattern(props)`. */
export class BridgeSubscription<const T extends DetailType> extends events.Rule {
  /** The rule's pattern (CDK form; `toEventPatternJson` gives EventBridge's JSON). */
  public readonly pattern: events.EventPattern;

  constructor(scope: Construct, id: string, props: BridgeSubscriptionProps<T>) {
    const { eventBus, eventSource, detailType, detail, ...ruleProps } = props;
    const bridgeBus = isBridgeBus(eventBus) ? eventBus : undefined;
    const eventPattern = bridgePattern<T>({
      eventSource: eventSource ?? bridgeBus?.eventSource ?? DEFAULT_EVENT_SOURCE,
      detailType,
      ...(detail === undefined ? {} : { detail }),
    });
    super(scope, id, {
      ...ruleProps,
      eventBus: bridgeBus ? bridgeBus.eventBus : (eventBus as events.IEventBus),
      eventPattern,
    });
    this.pattern = eventPattern;
  }
}
