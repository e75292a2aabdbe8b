import type { Context } from 'hono';
import type { Account, EmulatedEndpoint, EmulatedPod, Platform } from '../platform.js';
import { problem } from './problem.js';
import type { ExecTable } from './exec-table.js';

/** What a route of the emulator knows of its request beside Hono's own: the account its key named. */
export type EmulatorEnv = { Variables: { account: Account } };

export type V2Context = Context<EmulatorEnv>;

/** One worker of a serverless endpoint, from its worker pool. */
export interface WorkerInfo {
  id: string;
  status: 'RUNNING' | 'IDLE' | 'INITIALIZING' | 'THROTTLED' | 'UNHEALTHY';
  startedAt: number;
}

export interface RestV2Deps {
  platform: Platform;
  /** Names of the registered job handlers; an endpoint named after one runs it. */
  handlerNames(): ReadonlySet<string>;
  /** The workers an endpoint has now. */
  workers(account: Account, endpoint: EmulatedEndpoint): readonly WorkerInfo[];
  /** An endpoint was created or its settings changed: its workers follow. */
  endpointChanged?(account: Account, endpoint: EmulatedEndpoint): void;
  /** An endpoint was deleted: its workers and unfinished jobs go. */
  endpointDeleted?(account: Account, endpointId: string): void;
  /** Where the queue routes of an endpoint live, from the origin a request came to. */
  queueBase(origin: string): string;
  loadBalancedBase(origin: string, endpointId: string): string;
  /** The commands `POST /pods/{id}/exec` runs (a test adds its own). */
  exec: ExecTable;
}

/** Settings of a pod that only REST v2 knows; pods made through GraphQL have none. */
export interface PodExtras {
  args?: string | undefined;
  startSsh?: boolean | undefined;
  startJupyter?: boolean | undefined;
  locked?: boolean | undefined;
  globalNetworking?: boolean | undefined;
  cpu?: { id: string; vcpuCount: number; memory: number } | undefined;
  cluster?: { id: string; rank: number } | undefined;
}

export interface Delegation {
  id: string;
  name: string | null;
  resource: string;
  createdAt: number;
}

export interface Cluster {
  id: string;
  name: string;
  type: string;
  compute: { gpuTypeId: string; gpuCountPerPod: number; podCount: number };
  image?: string | undefined;
  /** The template its pods were made from (REST v2 answers it as `template`). */
  templateId?: string | undefined;
  dataCenterId: string;
  podIds: string[];
  createdAt: number;
}

/** An account secret; `value` never leaves the emulator but through a pod's container env. */
export interface EmulatedSecret {
  id: string;
  name: string;
  description: string | null;
  value: string;
  createdAt: number;
  valueUpdatedAt: number | null;
}

/** What REST v2 keeps per account beside the shared platform state. */
export interface AccountV2State {
  sshKeys: string[];
  delegations: Map<string, Delegation>;
  clusters: Map<string, Cluster>;
  /** Network volume id → STANDARD or HIGH_PERFORMANCE; kept after deletion, for billing. */
  volumeTypes: Map<string, string>;
  secrets: Map<string, EmulatedSecret>;
}

const podExtras = new WeakMap<EmulatedPod, PodExtras>();
const accountState = new WeakMap<Account, AccountV2State>();

export function extrasOf(pod: EmulatedPod): PodExtras {
  let extras = podExtras.get(pod);
  if (!extras) podExtras.set(pod, (extras = {}));
  return extras;
}

export function stateOf(account: Account): AccountV2State {
  let state = accountState.get(account);
  if (!state) accountState.set(account, (state = { sshKeys: [], delegations: new Map(), clusters: new Map(), volumeTypes: new Map(), secrets: new Map() }));
  return state;
}

export const accountOf = (c: V2Context): Account => c.get('account');

/** The `{id}` path parameter; an empty one cannot reach here, but `.`/`..` can. */
export function idParam(c: V2Context, name = 'id'): string {
  const id = c.req.param(name) ?? '';
  if (!id || id === '.' || id === '..') throw problem(400, `Path parameter ${name} is not a valid id.`);
  return id;
}

export const iso = (ms: number) => new Date(ms).toISOString();

/** Largest `POST /v2/pods` body the platform reads; a larger one gets 413 before authentication. */
export const POD_CREATE_MAX_BYTES = 102_400;
