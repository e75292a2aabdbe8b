import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorJson } from '../../src/cli/errors.js';
import { formatProgress, printTable, safeJson, safeText } from '../../src/cli/output.js';
import { createEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';
import type { ListeningEmulator } from '../../src/emulator/index.js';
import { createRunpodClient } from '../../src/index.js';
import { FUZZ_TIMEOUT_MS, params, reportFigures } from './harness.js';

// Server text (pod names, images, job failure messages) full of terminal controls: no raw C0
// (but tab and newline), DEL, C1, ESC or bidi control byte reaches the CLI's stdout or stderr.
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const RAW_CONTROL_OR_BREAK = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Hostile text: ANSI/OSC/CSI sequences, 8-bit C1 controls, bidi overrides, CR, and ordinary text around them. */
const hostile = fc
  .array(
    fc.oneof(
      fc.constantFrom('\u001b[2J', '\u001b]0;pwned\u0007', '\u001b]52;c;cHduZWQ=\u0007', '\u001b]8;;https://evil\u001b\\', '\u009b31m', '\u009d0;x\u009c', '\u001bc', '\r', '\b', '\u007f', '\u202e', '\u2066', '\u0000'),
      fc.integer({ min: 0, max: 0x9f }).map((c) => String.fromCharCode(c)),
      fc.string({ maxLength: 6 }),
    ),
    { minLength: 1, maxLength: 12 },
  )
  .map((parts) => parts.join(''));

let texts = 0;
let leaked = 0;
afterAll(() => reportFigures('CLI output with control characters', { 'hostile texts': texts, 'raw controls printed': leaked }));

describe('CLI output with control characters', () => {
  it('property: safeText, printTable, formatProgress and safeJson never let a raw control through; JSON stays the same value', () => {
    fc.assert(
      fc.property(hostile, hostile, (a, b) => {
        texts += 2;
        const lines: string[] = [];
        const log = console.log;
        console.log = (line: string) => lines.push(line);
        try {
          printTable([{ NAME: a, IMAGE: b }]);
        } finally {
          console.log = log;
        }
        // Tabs and newlines may stay in free text; one-line outputs (table rows, the progress line) hold none.
        const multiLine = [safeText(a), safeJson({ a, b }, 2)];
        const oneLine = [safeText(b, true), formatProgress(a, 1000), ...lines];
        const raw = multiLine.some((o) => RAW_CONTROL.test(o)) || oneLine.some((o) => RAW_CONTROL_OR_BREAK.test(o));
        if (raw) leaked++;
        expect(raw).toBe(false);
        // One line per table row, whatever the text held.
        expect(lines).toHaveLength(2);
        expect(JSON.parse(safeJson({ a, b }, 2))).toEqual({ a, b });
      }),
      params(500),
    );
  }, FUZZ_TIMEOUT_MS);

  it('property: a --json error is one line of JSON, no raw control, the same message, status and requestId', () => {
    fc.assert(
      fc.property(hostile, hostile, fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }), fc.option(hostile, { nil: undefined }), (name, message, status, requestId) => {
        texts += 2;
        const line = errorJson(name, message, { status, requestId });
        const raw = RAW_CONTROL_OR_BREAK.test(line);
        if (raw) leaked++;
        expect(raw).toBe(false);
        expect(JSON.parse(line)).toEqual({ error: { name, message, ...(status !== undefined && { status }), ...(requestId && { requestId }) } });
      }),
      params(500),
    );
  }, FUZZ_TIMEOUT_MS);

  describe('the built CLI against a served emulator', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    let server: ListeningEmulator;
    beforeAll(async () => {
      server = await listen(createEmulator({ podStartupMs: 0 }), { port: 0, host: '127.0.0.1' });
    });
    afterAll(async () => {
      await server?.close();
    });

    const cli = (args: string[]) =>
      new Promise<string>((resolve) => {
        const env = { PATH: process.env.PATH ?? '', RUNPOD_API_KEY: server.clientOptions().apiKey, RUNPOD_GRAPHQL_URL: server.graphqlUrl, RUNPOD_REST_URL: server.restUrl, RUNPOD_SERVERLESS_URL: server.serverlessUrl };
        execFile(process.execPath, ['dist/cli/main.js', ...args], { cwd: root, env, timeout: 30_000 }, (_err, stdout, stderr) => resolve(stdout + stderr));
      });

    it('property: pods list (table and JSON), pods get and a job failure print no raw control from server text', async () => {
      const rp = createRunpodClient(server.clientOptions());
      await fc.assert(
        fc.asyncProperty(hostile, hostile, async (name, message) => {
          texts += 2;
          const pod = await rp.pods.deploy({ name: name.trim() === '' ? `x${name}` : name, imageName: `img${message}`, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 });
          try {
            const outputs = await Promise.all([
              cli(['pods', 'list']),
              cli(['pods', 'get', pod.id]),
              cli(['jobs', 'run', 'fail', '--input', JSON.stringify({ message }), '--sync']),
            ]);
            const raw = outputs.some((o) => RAW_CONTROL.test(o));
            if (raw) leaked++;
            expect(outputs.find((o) => RAW_CONTROL.test(o))).toBeUndefined();
          } finally {
            await rp.pods.terminate(pod.id);
          }
        }),
        params(3),
      );
    }, FUZZ_TIMEOUT_MS * 3);
  });
});
