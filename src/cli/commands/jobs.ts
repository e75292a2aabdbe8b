// `runpod-gql jobs …`: serverless jobs on queue-based endpoints.
import { Option } from 'commander';
import { group, type CommandGroup } from '../program.js';
import { UsageError } from '../errors.js';
import { inputSource, seconds, toMs, type InputSource } from '../options.js';
import { readInput } from '../input.js';
import { emulatorNote, print, progressLine, safeJson, safeText, say } from '../output.js';
import { whileRunning } from '../signals.js';
import { withClient } from '../session.js';

export const jobs: CommandGroup = (program) => {
  const jobs = group(program, 'jobs', 'serverless jobs on queue-based endpoints');
  jobs
    .command('run')
    .description('queue a job and print its id (--wait: until done; --sync: runsync)')
    .argument('<endpoint-id>')
    .option('--input <json>', "the job input: JSON, @FILE to read it from a file, or - to read it from stdin", inputSource, { value: {} })
    .addOption(new Option('--sync', 'run with /runsync').conflicts('wait'))
    .option('--wait', 'queue, then wait until the job is done')
    .option('--timeout <seconds>', 'with --sync or --wait: give up after this long (default: 600 with --wait; with --sync, 60)', seconds)
    .action(
      withClient(async ({ rp, emulator, where }, o, endpointId: string) => {
        const endpoint = rp.endpoint(endpointId);
        const timeout = o.timeout as number | undefined;
        if (timeout !== undefined && !o.sync && !o.wait) throw new UsageError('--timeout needs --sync or --wait');
        const input = await readInput(o.input as InputSource, o);
        if (o.sync || o.wait) {
          const ended = emulator ? ' It ends with this command (--emulator).' : '';
          // Until /run or /runsync answers, a job may be queued whose id is not known yet.
          let running = `A job may have been queued on endpoint ${endpointId}, but its id has not come back; it may still run.${ended}`;
          let line = progressLine(o.sync ? 'waiting for /runsync' : 'queueing');
          const offInterrupt = whileRunning(where, () => running, { done: () => line?.done() });
          // On a terminal the server holds each status request briefly, so the line shows the job's
          // real status (IN_QUEUE, then IN_PROGRESS) rather than the first one seen.
          const waitOptions = {
            timeoutMs: timeout === undefined ? undefined : toMs(timeout),
            holdMs: line ? 2_000 : undefined,
            onProgress: line && (({ job }: { job: { id: string; status: string } }) => line?.state(`job ${job.id}: ${job.status}`)),
          };
          let done: unknown;
          try {
            if (o.sync) done = await endpoint.runSync(input, waitOptions);
            else {
              const job = await endpoint.run(input);
              running = `Stopped waiting; job ${job.id} on endpoint ${endpointId} keeps running and is billed while it runs.${ended || ` Cancel it: runpod-gql jobs cancel ${endpointId} ${job.id}; check it: runpod-gql jobs status ${endpointId} ${job.id}`}`;
              // The id first, on its own line: whatever happens next, the user knows which job is theirs.
              line?.done();
              console.error(safeText(`job ${job.id} queued on endpoint ${endpointId}`));
              line = progressLine(`job ${job.id}: IN_QUEUE`);
              done = await job.wait(waitOptions);
            }
          } finally {
            offInterrupt();
            line?.done();
          }
          return print(o, done);
        }
        // Until /run answers, a job may be queued whose id is not known yet.
        const offSignal = whileRunning(where, () => `A job may have been queued on endpoint ${endpointId}, but its id has not come back; it may still run.${emulator ? ' It ends with this command (--emulator).' : ''}`);
        let job;
        try {
          job = await endpoint.run(input);
        } finally {
          offSignal();
        }
        if (emulator) console.error(emulatorNote('job'));
        print(o, { id: job.id, endpointId: job.endpointId }, () => say(job.id));
      }),
    );
  jobs
    .command('status')
    .description("a job's state (JSON)")
    .argument('<endpoint-id>')
    .argument('<job-id>')
    .action(
      withClient(async ({ rp }, o, endpointId: string, jobId: string) => {
        print(o, await rp.endpoint(endpointId).status(jobId));
      }),
    );
  jobs
    .command('stream')
    .description("print a job's output chunks as they come (--json: one JSON line per chunk, with its metrics)")
    .argument('<endpoint-id>')
    .argument('<job-id>')
    .action(
      withClient(async ({ rp, emulator, where }, o, endpointId: string, jobId: string) => {
        // Strings as they are (a model's tokens join up), anything else as one JSON line.
        let atLineStart = true;
        // Stopping the stream does not stop the job. (whileRunning's note begins on a new line.)
        const offSignal = whileRunning(where, () =>
          emulator
            ? `Stopped streaming; job ${jobId} ends with this command (--emulator).`
            : `Stopped streaming; job ${jobId} on endpoint ${endpointId} keeps running and is billed while it runs. Cancel it: runpod-gql jobs cancel ${endpointId} ${jobId}; check it: runpod-gql jobs status ${endpointId} ${jobId}`,
        );
        try {
          for await (const chunk of rp.endpoint(endpointId).stream(jobId)) {
            let text: string;
            if (o.json) text = `${safeJson(chunk)}\n`;
            else if (typeof chunk.output === 'string') text = safeText(chunk.output);
            else text = `${atLineStart ? '' : '\n'}${safeJson(chunk.output)}\n`;
            if (text === '') continue;
            process.stdout.write(text);
            atLineStart = text.endsWith('\n');
          }
        } finally {
          offSignal();
        }
        if (!atLineStart) process.stdout.write('\n');
      }),
    );
  jobs
    .command('health')
    .description("an endpoint's jobs and workers, counted by state")
    .argument('<endpoint-id>')
    .action(
      withClient(async ({ rp }, o, endpointId: string) => {
        const health = await rp.endpoint(endpointId).health();
        print(o, health, () => {
          const { jobs: j, workers } = health;
          say(`jobs: ${j.inQueue} in queue, ${j.inProgress} in progress, ${j.completed} completed, ${j.failed} failed, ${j.retried} retried`);
          const states = Object.entries(workers).filter((e): e is [string, number] => typeof e[1] === 'number');
          say(`workers: ${states.map(([state, n]) => `${n} ${state}`).join(', ')}`);
        });
      }),
    );
  jobs
    .command('cancel')
    .description('cancel a job')
    .argument('<endpoint-id>')
    .argument('<job-id>')
    .action(
      withClient(async ({ rp }, o, endpointId: string, jobId: string) => {
        print(o, await rp.endpoint(endpointId).cancel(jobId));
      }),
    );
};
