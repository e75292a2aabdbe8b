// One process of the shared-pacing tests: a client paced through the Redis store, making `calls`
// status calls to the test's server. Prints `{"done":n,"failed":n,"sentAt":[…]}` when all have settled.
import { createRunpodClient } from '../../src/index.js';
import { createRedisPacingStore } from '../../src/pacing/redis.js';

interface Input {
  serverlessUrl: string;
  redisUrl: string;
  apiKey: string;
  calls: number;
  leaseMs: number;
  rateLimits: Record<string, { requests?: number; intervalMs?: number; concurrency?: number }>;
  /** The job id asked for: the server never answers `hang`, so those calls hold their slots. */
  jobId: string;
}
const input = JSON.parse(process.argv[2]!) as Input;
const pacingStore = createRedisPacingStore({ redis: input.redisUrl, leaseMs: input.leaseMs, onWarning: (m) => process.stderr.write(`${m}\n`) });
/** When each request left this process, on the wall clock the processes share. */
const sentAt: number[] = [];
const fetch = (url: string | URL | Request, init?: RequestInit) => (sentAt.push(Date.now()), globalThis.fetch(url, init));
const rp = createRunpodClient({ fetch, apiKey: input.apiKey, serverlessUrl: input.serverlessUrl, rateLimits: input.rateLimits, pacingStore, maxRetries: 0 });
const ep = rp.endpoint('ep-1');
const settled = await Promise.allSettled(Array.from({ length: input.calls }, () => ep.status(input.jobId)));
const failed = settled.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason));
console.log(JSON.stringify({ done: settled.length - failed.length, failed: failed.length, firstFailure: failed[0], sentAt }));
await pacingStore.close();
