// A client on an in-process emulator that records every request it sends (shared by the
// retirement tests of rp.pods and of rp.graphql's in-process executor).
import { createRunpodClient, type RunpodClientOptions, type TransportChangeEvent } from '../src/index.js';
import { createEmulator, type EmulatorOptions } from '../src/emulator/index.js';

export const RECORDING_KEY = 'rpa_retirement_key';

interface Sent {
  method: string;
  path: string;
}

/** A client on an in-process emulator, recording every request it sends. */
export function recordingClient(emulatorOptions: EmulatorOptions = {}, clientOptions: RunpodClientOptions = {}, onAnswer?: (body: string) => void) {
  const emulator = createEmulator({ apiKeys: [RECORDING_KEY], podStartupMs: 0, ...emulatorOptions });
  const base = emulator.clientOptions(RECORDING_KEY);
  const sent: Sent[] = [];
  const events: TransportChangeEvent[] = [];
  const rp = createRunpodClient({
    ...base,
    rateLimits: false,
    onTransportChange: (e) => events.push(e),
    ...clientOptions,
    fetch: (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      sent.push({ method: init?.method ?? 'GET', path: url.pathname });
      const answer = base.fetch!(input, init);
      return onAnswer ? answer.finally(() => onAnswer(typeof init?.body === 'string' ? init.body : '')) : answer;
    },
  });
  const graphqlSent = () => sent.filter((s) => s.path.endsWith('/graphql')).length;
  return { emulator, rp, sent, events, graphqlSent };
}

