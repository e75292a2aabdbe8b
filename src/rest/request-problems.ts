// The rules compiled from the contract, applied: what is wrong with a REST v2 request body, if anything.
// It says what is wrong, as [field, message]; lazy.ts throws the ValidationError.
import { requestRules, type RequestSchemaName } from './__generated__/request-rules.js';
import type { FieldRule, ObjectRule } from './request-rule.js';
import type { CreatePodInput } from './types.js';

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? 'integer' : 'number';
  if (typeof value === 'object') {
    // Only what JSON.stringify sends as written: a plain object's own properties. An object that
    // inherits its fields (Object.create(valid)) would be sent without them.
    const proto: unknown = Object.getPrototypeOf(value);
    return proto === Object.prototype || proto === null ? 'object' : 'an object with a prototype';
  }
  return typeof value;
}

/** An own property: a key found on the prototype (`constructor`, `toString`) is not in the body. */
const ownValue = (object: object, key: string): unknown => (Object.hasOwn(object, key) ? (object as Record<string, unknown>)[key] : undefined);

function problemOfField(rule: FieldRule, value: unknown, path: string): [string, string] | undefined {
  const type = typeOf(value);
  if (typeof value === 'number' && !Number.isFinite(value)) return [path, `must be a finite number, got ${value}`];
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value) && rule.t?.includes('integer')) {
    return [path, `must be an integer JSON carries exactly (between -(2^53 - 1) and 2^53 - 1), got ${value}`];
  }
  if (rule.t && !rule.t.includes(type) && !(type === 'integer' && rule.t.includes('number'))) {
    return [path, `must be ${rule.t.join(' or ')}, got ${type}`];
  }
  if (rule.e && !rule.e.includes(value)) return [path, `must be one of ${rule.e.map((v) => JSON.stringify(v)).join(', ')}`];
  if (typeof value === 'number') {
    if (rule.min !== undefined && value < rule.min) return [path, `must be at least ${rule.min}`];
    if (rule.max !== undefined && value > rule.max) return [path, `must be at most ${rule.max}`];
  }
  if (typeof value === 'string') {
    // JSON Schema counts characters (code points), not UTF-16 units.
    const length = rule.minLen !== undefined || rule.maxLen !== undefined ? [...value].length : 0;
    if (rule.minLen !== undefined && length < rule.minLen) return [path, rule.minLen === 1 ? 'must not be empty' : `must have at least ${rule.minLen} characters`];
    if (rule.maxLen !== undefined && length > rule.maxLen) return [path, `must have at most ${rule.maxLen} characters, got ${length}`];
    if (rule.p !== undefined && !new RegExp(rule.p, 'u').test(value)) return [path, `must match ${rule.p}`];
  }
  if (Array.isArray(value)) {
    if (rule.minItems !== undefined && value.length < rule.minItems) return [path, `must have at least ${rule.minItems} item(s)`];
    if (rule.maxItems !== undefined && value.length > rule.maxItems) return [path, `must have at most ${rule.maxItems} item(s)`];
    if (rule.unique && new Set(value.map((v) => JSON.stringify(v))).size !== value.length) return [path, 'must not repeat an item'];
    if (rule.i) {
      for (let n = 0; n < value.length; n++) {
        const problem = problemOfField(rule.i, value[n], `${path}[${n}]`);
        if (problem) return problem;
      }
    }
  }
  if (rule.o && type === 'object') return problemOfObject(rule.o, value as Record<string, unknown>, path);
  if (rule.u) {
    if (type !== 'object') return [path, 'must be an object'];
    const object = value as Record<string, unknown>;
    const problems = rule.u.map((alt) => problemOfObject(alt, object, path));
    if (problems.some((p) => p === undefined)) return undefined;
    // Report against the alternative the value's `type` names (the contract's discriminator).
    const named = rule.u.findIndex((alt) => ownValue(alt.k, 'type') !== undefined && alt.k.type?.e?.includes(ownValue(object, 'type')));
    return problems[named >= 0 ? named : 0];
  }
  return undefined;
}

function problemOfObject(rule: ObjectRule, body: Record<string, unknown>, path: string): [string, string] | undefined {
  const present = (key: string) => ownValue(body, key) !== undefined;
  for (const key of rule.r ?? []) if (!present(key)) return [`${path}.${key}`, 'is required'];
  for (const [key, unless] of Object.entries(rule.ru ?? {})) {
    if (!present(key) && !present(unless)) return [`${path}.${key}`, `is required unless ${unless} is given`];
  }
  for (const [key, needs] of Object.entries(rule.dr ?? {})) {
    for (const need of present(key) ? needs : []) if (!present(need)) return [`${path}.${need}`, `is required with ${key}`];
  }
  for (const cond of rule.c ?? []) {
    if (ownValue(body, cond.k) !== cond.v) continue;
    for (const [key, field] of Object.entries(cond.then)) {
      const problem = present(key) ? problemOfField(field, ownValue(body, key), `${path}.${key}`) : undefined;
      if (problem) return [problem[0], `${problem[1]} (${cond.k} is ${JSON.stringify(cond.v)})`];
    }
  }
  const keys = Object.keys(body).filter(present);
  if (rule.minProps !== undefined && keys.length < rule.minProps) return [path, 'must set at least one field'];
  for (const key of keys) {
    // A `__proto__` key would be sent as data but read by many servers as the object's prototype.
    if (key === '__proto__') return [`${path}.${key}`, 'is not allowed as a key'];
    const field = (Object.hasOwn(rule.k, key) ? rule.k[key] : undefined) ?? rule.v;
    if (!field) {
      if (rule.closed) return [`${path}.${key}`, `unknown field; allowed: ${Object.keys(rule.k).join(', ')}`];
      continue;
    }
    const problem = problemOfField(field, ownValue(body, key), `${path}.${key}`);
    if (problem) return problem;
  }
  return undefined;
}

/** The field and what is wrong with it when `body` breaks the contract's `schema`; undefined when it does not. */
export function problemOfBody(schema: RequestSchemaName, body: unknown, path = 'body'): [string, string] | undefined {
  if (typeOf(body) !== 'object') return [path, 'must be a plain object (its own properties are what is sent)'];
  return problemOfObject(requestRules[schema], body as Record<string, unknown>, path);
}

/** The pod actions the contract names. */
export function podActions(): readonly unknown[] {
  return requestRules.PodActionRequest.k.action?.e ?? [];
}

/**
 * The rules of a pod create the contract's schema does not express, and its size as sent (with
 * `markerBytes` for the create marker): the body to send (gpu.count defaults to 1), or what is wrong.
 */
export function podCreateProblem(body: CreatePodInput, markerBytes: number, maxBytes: number): CreatePodInput | [string, string] {
  if ((body.gpu === undefined) === (body.cpu === undefined)) return ['body.gpu', 'give exactly one of gpu and cpu'];
  const vcpus = body.cpu?.vcpuCount;
  if (vcpus !== undefined && (vcpus < 2 || (vcpus & (vcpus - 1)) !== 0)) return ['body.cpu.vcpuCount', `must be a power of 2, at least 2; got ${vcpus}`];
  const sent = body.gpu && body.gpu.count === undefined ? { ...body, gpu: { ...body.gpu, count: 1 } } : body;
  const size = new TextEncoder().encode(JSON.stringify(sent)).byteLength + markerBytes;
  if (size > maxBytes) return ['body', `is ${size} bytes as sent (with the create marker); the platform refuses pod create bodies over ${maxBytes} bytes (413)`];
  return sent;
}
