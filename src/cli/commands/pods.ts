// `runpod-gql pods …`: deploy, inspect and control pods.
import { NotFoundError } from '../../index.js';
import { group, type CommandGroup } from '../program.js';
import { cloudOptions, diskGigabytes, envPair, gpuCount, podName, seconds, transportOption } from '../options.js';
import { emulatorNote, print, printTable, progressLine, say } from '../output.js';
import { onInterrupt } from '../signals.js';
import { withClient } from '../session.js';

export const pods: CommandGroup = (program) => {
  const pods = group(program, 'pods', 'deploy, inspect and control pods').addOption(transportOption());
  pods
    .command('list')
    .description('your pods')
    .action(
      withClient(async ({ rp }, o) => {
        const list = await rp.pods.list();
        print(o, list, () => printTable(list.map((p) => ({ ID: p.id, NAME: p.name, STATUS: p.desiredStatus, GPUS: p.gpuCount, '$/HR': p.costPerHr, IMAGE: p.imageName ?? '' }))));
      }),
    );
  pods
    .command('get')
    .description('one pod (JSON)')
    .argument('<pod-id>')
    .action(
      withClient(async ({ rp }, o, podId: string) => {
        const pod = await rp.pods.get(podId);
        // The same error (and exit code 3) as `pods stop` of a missing pod.
        if (!pod) throw new NotFoundError(`no pod ${podId} on this account`, { status: 404 });
        print(o, pod);
      }),
    );
  const [secure, community] = cloudOptions();
  pods
    .command('deploy')
    .description('deploy a pod')
    .requiredOption('--gpu <type>', 'GPU type id (see `runpod-gql gpus`)')
    .requiredOption('--image <image>', 'container image')
    .option('--name <name>', 'pod name', podName, 'runpod-gql')
    .option('--count <n>', 'GPUs', gpuCount, 1)
    .option('--ports <ports>', 'exposed ports, e.g. 8888/http,22/tcp')
    .option('--env <key=value>', 'an environment variable (repeatable)', envPair)
    .option('--volume <gb>', 'volume disk size', diskGigabytes)
    .option('--disk <gb>', 'container disk size', diskGigabytes)
    .addOption(secure)
    .addOption(community)
    .action(
      withClient(async ({ rp, emulator }, o) => {
        const pod = await rp.pods.deploy({
          name: o.name as string,
          imageName: o.image as string,
          gpuTypeId: o.gpu as string,
          gpuCount: o.count as number,
          cloudType: o.secure ? 'SECURE' : o.community ? 'COMMUNITY' : 'ALL',
          ports: o.ports as string | undefined,
          volumeInGb: o.volume as number | undefined,
          containerDiskInGb: o.disk as number | undefined,
          env: (o.env as Record<string, string> | undefined) ?? {},
        });
        if (emulator) console.error(emulatorNote('pod'));
        print(o, pod, () => say(`deployed ${pod.id} (${pod.gpuCount} GPU, $${pod.costPerHr}/hr)`));
      }),
    );
  pods
    .command('stop')
    .description('stop a pod (keeps /workspace)')
    .argument('<pod-id>')
    .action(
      withClient(async ({ rp }, o, podId: string) => {
        const stopped = await rp.pods.stop(podId);
        print(o, stopped, () => say(`${stopped.id} ${stopped.desiredStatus}`));
      }),
    );
  pods
    .command('resume')
    .description('start a stopped pod')
    .argument('<pod-id>')
    .option('--count <n>', 'GPUs', gpuCount, 1)
    .action(
      withClient(async ({ rp }, o, podId: string) => {
        const pod = await rp.pods.resume({ podId, gpuCount: o.count as number });
        print(o, pod, () => say(`${pod.id} ${pod.desiredStatus} with ${pod.gpuCount} GPU`));
      }),
    );
  pods
    .command('terminate')
    .description('delete a pod and everything not on a network volume')
    .argument('<pod-id>')
    .action(
      withClient(async ({ rp }, o, podId: string) => {
        await rp.pods.terminate(podId);
        print(o, { id: podId, terminated: true }, () => say(`${podId} terminated`));
      }),
    );
  pods
    .command('wait')
    .description('wait until the pod is RUNNING with its ports mapped (progress on a terminal)')
    .argument('<pod-id>')
    .option('--timeout <seconds>', 'give up after this long', seconds)
    .option('--no-require-ports', 'do not wait for port mappings (a pod without ports)')
    .action(
      withClient(async ({ rp, emulator, where }, o, podId: string) => {
        const line = progressLine('waiting for the pod');
        const timeout = o.timeout as number | undefined;
        const stillRunning = emulator
          ? `pod ${podId} ends with this command (--emulator).`
          : `pod ${podId} keeps starting and is billed while it runs. Check it: runpod-gql pods get ${podId}; stop it: runpod-gql pods stop ${podId}; delete it: runpod-gql pods terminate ${podId}`;
        const offInterrupt = onInterrupt(where, () => `Stopped waiting; ${stillRunning}`, line);
        let pod;
        try {
          pod = await rp.pods.waitUntilReady(podId, {
            timeoutMs: timeout === undefined ? undefined : timeout * 1000,
            requirePorts: o.requirePorts as boolean,
            onProgress: line && (({ pod: p }) => line.state(`${p.desiredStatus}, container ${p.runtime ? 'up' : 'starting'}`)),
          });
        } finally {
          offInterrupt();
          line?.done();
        }
        const ready = pod;
        print(o, ready, () => say(`${ready.id} ready: ${(ready.runtime?.ports ?? []).map((p) => `${p?.privatePort}/${p?.type} → ${p?.ip}:${p?.publicPort}`).join(', ')}`));
      }),
    );
};
