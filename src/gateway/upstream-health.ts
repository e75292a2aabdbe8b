// Whether RunPod accepts the gateway's own key: a 401 to a document run with it turns `/readyz` to
// 503 (every document would fail 502 until the key is fixed), with one log line when that starts
// and one when it ends. While refused, `/readyz` asks RunPod again, at most every `probeEveryMs`.
// Pass-through keys are the callers' own: their refusals say nothing of the gateway.
import type { Log } from '../transport/logger.js';

const PROBE_EVERY_MS = 10_000;

export interface UpstreamHealth {
  /** One upstream answer to a document run with the gateway's own key. */
  observe(status: number): void;
  /** Undefined while the key is accepted, else why `/readyz` is 503. */
  readiness(): string | undefined;
}

/** `probe` asks RunPod once with the key: true accepted, false refused, undefined unknown (RunPod away). */
export function createUpstreamHealth(log: Log, probe: () => Promise<boolean | undefined>, probeEveryMs = PROBE_EVERY_MS): UpstreamHealth {
  let refused = false;
  let probing = false;
  let lastProbe = 0;
  const set = (now: boolean) => {
    if (now === refused) return;
    refused = now;
    if (now) log.error("gateway: RunPod refused the gateway's upstream key (401): every document fails with 502 until it is accepted, and /readyz answers 503. Check RUNPOD_API_KEY");
    else log.warn("gateway: RunPod accepts the gateway's upstream key again: /readyz answers 200");
  };
  return {
    observe(status) {
      if (status === 401) set(true);
      else if (status >= 200 && status < 300) set(false);
    },
    readiness() {
      if (!refused) return undefined;
      const now = performance.now();
      if (!probing && now - lastProbe >= probeEveryMs) {
        probing = true;
        lastProbe = now;
        void probe()
          .then((accepted) => accepted !== undefined && set(!accepted), () => {})
          .finally(() => (probing = false));
      }
      return 'upstream key refused';
    },
  };
}
