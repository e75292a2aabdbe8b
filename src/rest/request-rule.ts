// The shape of the request rules codegen compiles from the contract (__generated__/request-rules.ts):
// below both the rules and their reader (request-problems.ts).

/** One value's rule: JSON types, enum, bounds, pattern, and the rule of its object, items or alternatives. */
export interface FieldRule {
  readonly t?: readonly string[];
  readonly e?: readonly unknown[];
  readonly min?: number;
  readonly max?: number;
  readonly minLen?: number;
  readonly maxLen?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly unique?: boolean;
  readonly p?: string;
  readonly o?: ObjectRule;
  readonly i?: FieldRule;
  readonly u?: readonly ObjectRule[];
}

/** An object's rule: known keys, required keys, closed or not, the value rule of a map, conditional requirements. */
export interface ObjectRule {
  readonly k: Readonly<Record<string, FieldRule>>;
  readonly r?: readonly string[];
  readonly closed?: boolean;
  readonly minProps?: number;
  readonly v?: FieldRule;
  /** `image` required unless `templateId` is given. */
  readonly ru?: Readonly<Record<string, string>>;
  readonly dr?: Readonly<Record<string, readonly string[]>>;
  /** When key `k` is `v`, the fields in `then` must also pass these rules (a LOAD_BALANCER scales by request count). */
  readonly c?: ReadonlyArray<{ readonly k: string; readonly v: unknown; readonly then: Readonly<Record<string, FieldRule>> }>;
}
