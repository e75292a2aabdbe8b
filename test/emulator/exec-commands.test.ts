import { afterEach, describe, expect, it } from 'vitest';
import { createRunpodClient, type RunpodClient } from '../../src/index.js';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';

// The programs an emulated pod has without a definition (`pods exec`): the README's `nvidia-smi`
// example and the usual looking around (ls, cat, sh -c, …), consistent with the pod the API shows.
const emulators: Emulator[] = [];
afterEach(() => {
  for (const emulator of emulators.splice(0)) emulator.dispose();
});

async function podWith(gpu: { id: string; count?: number } | 'cpu'): Promise<{ emulator: Emulator; rp: RunpodClient; id: string; exec: (...command: string[]) => Promise<{ exitCode: number; stdout: string; stderr: string }> }> {
  const emulator = createEmulator({ podStartupMs: 0, clock: 'manual' });
  emulators.push(emulator);
  const rp = createRunpodClient(emulator.clientOptions());
  const pod = gpu === 'cpu' ? await rp.rest.pods.create({ name: 'cpu', image: 'ubuntu', cpu: { id: 'cpu3c', vcpuCount: 2 } }) : await rp.rest.pods.create({ name: 'gpu', image: 'runpod/pytorch:2.4.0', gpu: { id: gpu.id, count: gpu.count ?? 1 }, mounts: { persistent: { size: 20, path: '/workspace' } } });
  await emulator.clock.advance(1);
  return { emulator, rp, id: pod.id, exec: (...command) => rp.rest.pods.exec(pod.id, { command }) };
}

describe('nvidia-smi', () => {
  it("the README's example: a table of the pod's GPUs, its type and count, with the host's CUDA version", async () => {
    const { exec, rp, id } = await podWith({ id: 'NVIDIA GeForce RTX 4090', count: 2 });
    const run = await exec('nvidia-smi');
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe('');
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => /^\|\s+\d\s+NVIDIA GeForce RTX 4090\s+On\s+\|/.test(l))).toHaveLength(2);
    expect(run.stdout).toMatch(/CUDA Version: 12\.[48]/);
    expect(run.stdout).toMatch(/1MiB \/\s+24\d{3}MiB/);
    // Every line of the boxes is as wide as the frame.
    for (const line of lines.filter((l) => /^[|+]/.test(l))) expect(line.length, line).toBe(91);
    const pod = await rp.rest.pods.get(id);
    expect(pod.gpu?.count).toBe(2);
  });

  it('-L and --query-gpu=…,--format=csv answer one line per GPU, memory from the GPU type', async () => {
    const { exec } = await podWith({ id: 'NVIDIA L40S', count: 3 });
    expect((await exec('nvidia-smi', '-L')).stdout).toMatch(/^(GPU [0-2]: NVIDIA L40S \(UUID: GPU-[\w-]+\)\n){3}$/);
    const csv = await exec('nvidia-smi', '--query-gpu=index,name,memory.total', '--format=csv');
    expect(csv.stdout.split('\n')[0]).toBe('index, name, memory.total [MiB]');
    expect(csv.stdout.trim().split('\n').slice(1)).toEqual(['0, NVIDIA L40S, 49123 MiB', '1, NVIDIA L40S, 49123 MiB', '2, NVIDIA L40S, 49123 MiB']);
    expect((await exec('nvidia-smi', '--query-gpu=memory.total', '--format=csv,noheader,nounits')).stdout).toBe('49123\n49123\n49123\n');
    expect(await exec('nvidia-smi', '--query-gpu=bogus', '--format=csv')).toMatchObject({ exitCode: 2, stderr: expect.stringContaining('"bogus" is not a valid field') });
    expect(await exec('nvidia-smi', '--frobnicate')).toMatchObject({ exitCode: 2, stderr: expect.stringContaining("Please run 'nvidia-smi -h'") });
  });

  it('a CPU pod has no nvidia-smi (127, as exec says for any missing program)', async () => {
    const { exec } = await podWith('cpu');
    expect(await exec('nvidia-smi')).toMatchObject({ exitCode: 127, stderr: expect.stringContaining('executable file not found') });
    expect((await exec('nproc')).stdout).toMatch(/^\d+\n$/);
  });
});

describe('ls, cat, df and the small programs', () => {
  it("ls lists a believable tree with the pod's own files; cat reads them; missing paths fail as coreutils do", async () => {
    const { exec, emulator, id } = await podWith({ id: 'NVIDIA RTX A4000' });
    emulator.inspect.writeFile(id, '/workspace/data/train.csv', 'a,b\n1,2\n');
    expect((await exec('ls', '/')).stdout.split('\n')).toEqual(expect.arrayContaining(['bin', 'etc', 'root', 'tmp', 'usr', 'workspace']));
    expect(await exec('ls', '/workspace')).toEqual({ exitCode: 0, stdout: 'data\n', stderr: '' });
    expect((await exec('ls', '-l', '/workspace/data')).stdout).toMatch(/^total 4\n-rw-r--r-- 1 root root\s+8 \w{3} [\d ]\d \d\d:\d\d train\.csv\n$/);
    expect(await exec('cat', '/workspace/data/train.csv')).toEqual({ exitCode: 0, stdout: 'a,b\n1,2\n', stderr: '' });
    expect((await exec('cat', '/etc/hostname')).stdout).toBe(`${id}\n`);
    expect(await exec('ls', '/nope')).toMatchObject({ exitCode: 2, stderr: "ls: cannot access '/nope': No such file or directory\n" });
    expect(await exec('cat', '/workspace')).toMatchObject({ exitCode: 1, stderr: 'cat: /workspace: Is a directory\n' });
    // /usr/bin holds every program the pod has, defined ones included: `ls /usr/bin` is the list.
    emulator.exec.define('nvcc', () => ({ exitCode: 0, stdout: 'release 12.4\n' }));
    expect((await exec('ls', '/usr/bin')).stdout.split('\n')).toEqual(expect.arrayContaining(['cat', 'ls', 'nvidia-smi', 'nvcc', 'sh', 'bash', 'python3']));
  });

  it('nproc, df, uname, hostname, whoami and python --version agree with the pod', async () => {
    const { exec, rp, id } = await podWith({ id: 'NVIDIA RTX A4000', count: 2 });
    const pod = await rp.rest.pods.get(id);
    expect((await exec('nproc')).stdout).toBe(`${pod.gpu?.vcpuCount}\n`);
    const df = (await exec('df', '-h')).stdout;
    expect(df).toMatch(new RegExp(`^overlay\\s+${pod.disk}G .* /$`, 'm'));
    expect(df).toMatch(/\s20G .* \/workspace$/m);
    expect((await exec('uname', '-a')).stdout).toMatch(new RegExp(`^Linux ${id} .* x86_64 GNU/Linux\n$`));
    expect((await exec('hostname')).stdout).toBe(`${id}\n`);
    expect((await exec('whoami')).stdout).toBe('root\n');
    expect((await exec('python', '--version')).stdout).toMatch(/^Python 3\.\d+\.\d+\n$/);
    expect(await exec('python', 'train.py')).toMatchObject({ exitCode: 2, stderr: expect.stringContaining('emulator.exec.define') });
  });
});

describe('sh -c and bash -c', () => {
  it('runs commands of the set joined by &&, || and ;, with cd, quotes and $VARIABLES', async () => {
    const { exec, emulator, id } = await podWith({ id: 'NVIDIA RTX A4000' });
    emulator.inspect.writeFile(id, '/workspace/model.bin', 'weights');
    expect(await exec('sh', '-c', 'cd /workspace && ls; echo "in $PWD-less shell" \'$HOME\' $HOME')).toEqual({ exitCode: 0, stdout: "model.bin\nin -less shell $HOME /root\n", stderr: '' });
    expect(await exec('sh', '-c', 'cd /workspace && pwd')).toMatchObject({ stdout: '/workspace\n' });
    expect(await exec('sh', '-c', 'false && echo a || echo b')).toEqual({ exitCode: 0, stdout: 'b\n', stderr: '' });
    expect(await exec('sh', '-c', 'true || echo a && echo c')).toEqual({ exitCode: 0, stdout: 'c\n', stderr: '' });
    expect(await exec('sh', '-c', 'echo one; false')).toEqual({ exitCode: 1, stdout: 'one\n', stderr: '' });
    expect(await exec('sh', '-c', 'nope && echo never')).toEqual({ exitCode: 127, stdout: '', stderr: 'sh: 1: nope: not found\n' });
    expect(await exec('bash', '-c', 'nope')).toEqual({ exitCode: 127, stdout: '', stderr: 'bash: line 1: nope: command not found\n' });
    expect(await exec('sh', '-c', 'exit 3')).toMatchObject({ exitCode: 3 });
    expect(await exec('sh', '-c', 'cd /nope')).toMatchObject({ exitCode: 2, stderr: "sh: 1: cd: can't cd to /nope\n" });
    // What is not emulated says so, instead of doing something else.
    for (const script of ['ls | wc -l', 'echo x > f', 'sleep 1 &', 'echo $(date)', 'echo `date`']) {
      expect(await exec('sh', '-c', script)).toMatchObject({ exitCode: 2, stderr: expect.stringContaining('not emulated') });
    }
    expect(await exec('sh', '-c', "echo 'open")).toMatchObject({ exitCode: 2, stderr: expect.stringContaining('unterminated') });
    expect(await exec('sh')).toMatchObject({ exitCode: 2 });
  });

  it("runs a test's own programs, with the shell's cwd; a definition that calls itself ends", async () => {
    const { exec, emulator } = await podWith({ id: 'NVIDIA RTX A4000' });
    emulator.exec.define('train', (args, { cwd }) => ({ exitCode: 0, stdout: `training ${args.join(' ')} in ${cwd}\n` }));
    expect(await exec('bash', '-c', 'cd /workspace && train --epochs 2')).toEqual({ exitCode: 0, stdout: 'training --epochs 2 in /workspace\n', stderr: '' });
    emulator.exec.define('loop', (_args, { run }) => run(['sh', '-c', 'loop']));
    const looped = await exec('loop');
    expect(looped.exitCode).not.toBe(0);
    expect(looped.stderr).toContain('nested more than');
  });
});
