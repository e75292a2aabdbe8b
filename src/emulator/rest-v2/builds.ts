// Serverless builds: an endpoint's images built from its linked repository. A build walks PENDING,
// BUILDING, UPLOADING and TESTING on the emulator clock, one step each, and ends COMPLETED, FAILED
// (while building), TEST_FAILED (after testing) or CANCELLED (where it was cancelled).
import { Hono } from 'hono';
import type { EmulatorClock } from '../clock.js';
import { notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { Account, EmulatedEndpoint, Platform } from '../platform.js';
import type { EmulatorEnv } from './context.js';
import { accountOf, idParam, iso, type RestV2Deps } from './context.js';
import { cutPage, newestFirst } from './pages.js';

/** The contract's `BuildState`. */
export type BuildState = 'PENDING' | 'BUILDING' | 'UPLOADING' | 'TESTING' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TEST_FAILED';
/** How a build ends. */
export type BuildOutcome = 'COMPLETED' | 'FAILED' | 'TEST_FAILED' | 'CANCELLED';

/** A build for `emulator.builds.start`: where it came from and how it ends. */
export interface EmulatorBuildSpec {
  /** The endpoint it builds for. */
  endpointId: string;
  /** The account that owns the endpoint. @default the emulator's first key */
  apiKey?: string | undefined;
  /** @default 'COMPLETED' */
  outcome?: BuildOutcome | undefined;
  /** Emulator milliseconds per step (PENDING, BUILDING, UPLOADING, TESTING). @default 1000 */
  stepMs?: number | undefined;
  commitHash?: string | undefined;
  commitMessage?: string | undefined;
  branch?: string | undefined;
  /** @default `registry.runpod.net/{endpointId}:{commitHash or build id}` */
  imageName?: string | undefined;
  /** The message of a FAILED or TEST_FAILED build. @default a line naming the step */
  error?: string | undefined;
}

interface EmulatedBuild {
  id: string;
  spec: EmulatorBuildSpec;
  createdAt: number;
}

const STEPS: readonly BuildState[] = ['PENDING', 'BUILDING', 'UPLOADING', 'TESTING'];
/** The step a build ends in, for each way it ends: the end comes once that step is over. */
const ENDS_AFTER: Record<BuildOutcome, number> = { FAILED: 2, CANCELLED: 1, TEST_FAILED: 4, COMPLETED: 4 };

const builds = new WeakMap<EmulatedEndpoint, EmulatedBuild[]>();
const buildsOf = (endpoint: EmulatedEndpoint) => builds.get(endpoint) ?? [];

function stepMs(build: EmulatedBuild): number {
  return build.spec.stepMs ?? 1000;
}

/** The build as the contract shows it, at `now`. */
export function buildView(build: EmulatedBuild, now: number): Record<string, unknown> {
  const { spec } = build;
  const outcome = spec.outcome ?? 'COMPLETED';
  const step = Math.floor((now - build.createdAt) / stepMs(build));
  const ended = step >= ENDS_AFTER[outcome];
  const status: BuildState = ended ? outcome : STEPS[Math.min(step, STEPS.length - 1)]!;
  const started = step >= 1 && !(ended && outcome === 'CANCELLED');
  const failed = ended && (outcome === 'FAILED' || outcome === 'TEST_FAILED');
  return {
    id: build.id,
    status,
    commitHash: spec.commitHash ?? null,
    commitMessage: spec.commitMessage ?? null,
    branch: spec.branch ?? null,
    commitDate: spec.commitHash ? iso(build.createdAt) : null,
    imageName: spec.imageName ?? `registry.runpod.net/${spec.endpointId}:${spec.commitHash ?? build.id}`,
    startedAt: started ? iso(build.createdAt + stepMs(build)) : null,
    completedAt: ended ? iso(build.createdAt + ENDS_AFTER[outcome] * stepMs(build)) : null,
    error: failed ? (spec.error ?? (outcome === 'FAILED' ? 'docker build failed: the Dockerfile step exited with code 1' : 'the build image failed its tests')) : null,
  };
}

/** Starts a build of `endpoint` now; returns its id. */
export function startBuild(clock: EmulatorClock, endpoint: EmulatedEndpoint, spec: EmulatorBuildSpec): string {
  const outcome = spec.outcome ?? 'COMPLETED';
  if (!(outcome in ENDS_AFTER)) throw new Error(`emulator.builds.start: outcome must be one of ${Object.keys(ENDS_AFTER).join(', ')}`);
  if (spec.stepMs !== undefined && !(Number.isFinite(spec.stepMs) && spec.stepMs > 0)) throw new Error('emulator.builds.start: stepMs must be a number > 0');
  const build: EmulatedBuild = { id: newId(12), spec: { ...spec }, createdAt: clock.now() };
  builds.set(endpoint, [...buildsOf(endpoint), build]);
  return build.id;
}

/** When a build changes state next, over every account (the clock stops there in `run()` and auto mode). */
export function nextBuildChangeAt(platform: Platform): number | undefined {
  const now = platform.clock.now();
  let next: number | undefined;
  for (const account of platform.accounts.values()) {
    for (const endpoint of account.endpoints.values()) {
      for (const build of buildsOf(endpoint)) {
        const step = stepMs(build);
        if (build.createdAt + ENDS_AFTER[build.spec.outcome ?? 'COMPLETED'] * step <= now) continue;
        const at = build.createdAt + (Math.floor((now - build.createdAt) / step) + 1) * step;
        if (next === undefined || at < next) next = at;
      }
    }
  }
  return next;
}

export function buildRoutes(deps: RestV2Deps): Hono<EmulatorEnv> {
  const { platform } = deps;
  const app = new Hono<EmulatorEnv>();
  const endpointOf = (account: Account, id: string) => {
    const endpoint = account.endpoints.get(id);
    if (!endpoint) throw notFound('endpoint', id);
    return endpoint;
  };

  app.get('/serverless/:id/builds', (c) => {
    const endpoint = endpointOf(accountOf(c), idParam(c));
    const { items, pagination } = cutPage(c, newestFirst(buildsOf(endpoint)), { maxLimit: 100 });
    const now = platform.clock.now();
    return c.json({ builds: items.map((b) => buildView(b, now)), pagination });
  });

  app.get('/serverless/:id/builds/:buildId', (c) => {
    const endpoint = endpointOf(accountOf(c), idParam(c));
    const buildId = idParam(c, 'buildId');
    const build = buildsOf(endpoint).find((b) => b.id === buildId);
    if (!build) throw notFound('build', buildId);
    return c.json(buildView(build, platform.clock.now()));
  });

  return app;
}
