import { afterEach, describe, expect, it } from 'vitest';
import { createRunpodClient, type LogLine } from '../../src/index.js';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';

let emulator: Emulator | undefined;
afterEach(() => {
  emulator?.dispose();
  emulator = undefined;
});

const macrotask = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Reads a pod's log stream in the background; `lines` fills as they come, `ended` settles when it ends. */
function follow(stream: AsyncIterable<LogLine>): { lines: LogLine[]; ended: Promise<void> } {
  const lines: LogLine[] = [];
  const ended = (async () => {
    for await (const line of stream) lines.push(line);
  })();
  return { lines, ended };
}

/** Resolves once `check` holds, or fails after `ms` of real time. */
async function until(check: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await macrotask();
  }
}

async function runningPod(rp: ReturnType<typeof createRunpodClient>, e: Emulator): Promise<string> {
  const pod = await rp.rest.pods.create({ name: 'logs', image: 'me/app:1', gpu: { id: 'NVIDIA RTX A4000' } });
  await e.clock.advance(2_000);
  return pod.id;
}

describe('pod log streams end with their pod', () => {
  it('a followed stream ends after terminate, with the lines a user would see', async () => {
    emulator = createEmulator({ clock: 'manual' });
    const rp = createRunpodClient(emulator.clientOptions());
    const id = await runningPod(rp, emulator);
    const { lines, ended } = follow(rp.rest.pods.logs(id));
    await until(() => lines.some((l) => l.line.startsWith('container started')));
    let done = false;
    void ended.then(() => (done = true));
    await macrotask();
    expect(done).toBe(false);

    await rp.rest.pods.terminate(id);
    // No clock movement: the terminate itself wakes the stream, which then ends.
    await until(() => done);
    await ended;
    const system = lines.filter((l) => l.source === 'system').map((l) => l.line);
    expect(system.slice(-2)).toEqual([expect.stringMatching(/^stop container: Terminated by user/), 'remove container']);
  });

  it('terminate through GraphQL ends it too, and a stream opened on a stopped pod ends at once', async () => {
    emulator = createEmulator({ clock: 'manual' });
    const rp = createRunpodClient(emulator.clientOptions());
    const id = await runningPod(rp, emulator);
    const first = follow(rp.rest.pods.logs(id));
    await until(() => first.lines.length >= 2);
    await rp.pods.terminate(id);
    await first.ended;
    expect(first.lines.at(-1)?.line).toBe('remove container');

    const other = await runningPod(rp, emulator);
    await rp.rest.pods.stop(other);
    const stopped = follow(rp.rest.pods.logs(other));
    await stopped.ended;
    expect(stopped.lines.at(-1)?.line).toMatch(/^stop container: Stopped by user/);
  });

  it('stop, start and restart write their system lines, in order, while the stream follows', async () => {
    emulator = createEmulator({ clock: 'manual' });
    const rp = createRunpodClient(emulator.clientOptions());
    const id = await runningPod(rp, emulator);
    await rp.rest.pods.restart(id);
    await emulator.clock.advance(2_000);
    const { lines, ended } = follow(rp.rest.pods.logs(id, { source: 'system' }));
    await until(() => lines.length >= 3);
    await rp.rest.pods.stop(id);
    await ended;
    expect(lines.map((l) => l.line)).toEqual([
      'start container for me/app:1: begin',
      expect.stringMatching(/^stop container: Restarted by user/),
      'start container for me/app:1: begin',
      expect.stringMatching(/^stop container: Stopped by user/),
    ]);
    await rp.rest.pods.start(id);
    const after = follow(rp.rest.pods.logs(id, { source: 'system', tail: 1 }));
    await until(() => after.lines.length >= 1);
    expect(after.lines[0]!.line).toBe('start container for me/app:1: begin');
    await rp.rest.pods.terminate(id);
    await after.ended;
    expect(after.lines.at(-1)?.line).toBe('remove container');
  });
});
