// The programs an emulated pod has without a test defining them: enough of a CUDA image for the
// README's `pods exec` examples and for scripts that look around (nvidia-smi, ls, cat, sh -c, …).
// Each answers from the pod's own facts (its GPU type and count, its disks, the files written into
// it), so the output is consistent with what the API says about the same pod.
import type { ExecCommand, ExecContext, ExecResult } from './exec-program.js';

const ok = (stdout = ''): ExecResult => ({ exitCode: 0, stdout });
const fail = (exitCode: number, stderr: string): ExecResult => ({ exitCode, stderr });
const envLines = (env: Readonly<Record<string, string>>) => Object.entries(env).map(([k, v]) => `${k}=${v}\n`).join('');

// ---- the file tree ------------------------------------------------------------------------------

/** Directories every pod has, beside its volume mount and the directories of its files. */
const BASE_DIRECTORIES = ['/', '/bin', '/dev', '/etc', '/home', '/opt', '/proc', '/root', '/tmp', '/usr', '/usr/bin', '/usr/local', '/var'];

const OS_RELEASE = `PRETTY_NAME="Ubuntu 22.04.5 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.5 LTS (Jammy Jellyfish)"
ID=ubuntu
ID_LIKE=debian
`;

interface Tree {
  directories: Set<string>;
  files: Map<string, string>;
}

const parentOf = (path: string) => path.slice(0, path.lastIndexOf('/')) || '/';

/** The pod's tree: the base, `/etc` files, `/usr/bin` holding every defined program, and the pod's own files. */
function treeOf(context: ExecContext): Tree {
  const { pod } = context;
  const directories = new Set(BASE_DIRECTORIES);
  const files = new Map<string, string>([
    ['/etc/hostname', `${pod.id}\n`],
    ['/etc/os-release', OS_RELEASE],
  ]);
  for (const name of context.programs()) files.set(`/usr/bin/${name}`, '');
  directories.add(normalise(pod.volumeMountPath, '/'));
  for (const [path, content] of Object.entries(pod.files)) files.set(normalise(path, '/'), content);
  for (const path of [...files.keys(), ...directories]) {
    for (let dir = parentOf(path); !directories.has(dir); dir = parentOf(dir)) directories.add(dir);
  }
  return { directories, files };
}

/** `path` made absolute against `cwd`, with `.`, `..` and repeated slashes resolved. */
function normalise(path: string, cwd: string): string {
  const parts: string[] = [];
  for (const part of `${path.startsWith('/') ? '' : `${cwd}/`}${path}`.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

/** The names directly inside `dir`, sorted as `LC_ALL=C ls` sorts them. */
function entriesOf(tree: Tree, dir: string): string[] {
  const prefix = dir === '/' ? '/' : `${dir}/`;
  const names = new Set<string>();
  for (const path of [...tree.directories, ...tree.files.keys()]) {
    if (path !== dir && path.startsWith(prefix) && !path.slice(prefix.length).includes('/')) names.add(path.slice(prefix.length));
  }
  return [...names].sort();
}

// ---- ls, cat, df ----------------------------------------------------------------------------------

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const lsDate = (ms: number) => {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2)} ${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
};

/** Splits `-la`-style flags from operands; answers the unknown flag, if any. */
function flagsOf(args: readonly string[], known: string): { flags: Set<string>; operands: string[]; unknown?: string } {
  const flags = new Set<string>();
  const operands: string[] = [];
  for (const arg of args) {
    if (arg.length > 1 && arg.startsWith('-') && arg !== '--') {
      for (const flag of arg.slice(1)) {
        if (!known.includes(flag)) return { flags, operands, unknown: flag };
        flags.add(flag);
      }
    } else if (arg !== '--') operands.push(arg);
  }
  return { flags, operands };
}

const ls: ExecCommand = (args, context) => {
  const { flags, operands, unknown } = flagsOf(args, 'la1Ah');
  if (unknown) return fail(2, `ls: invalid option -- '${unknown}'\nTry 'ls --help' for more information.\n`);
  const tree = treeOf(context);
  const long = flags.has('l');
  const when = lsDate(context.pod.startedAt);
  const line = (path: string, name: string) => {
    if (!long) return `${name}\n`;
    const isDir = tree.directories.has(path);
    const size = isDir ? 4096 : new TextEncoder().encode(tree.files.get(path) ?? '').length;
    return `${isDir ? 'drwxr-xr-x 2' : path.startsWith('/usr/bin/') ? '-rwxr-xr-x 1' : '-rw-r--r-- 1'} root root ${String(size).padStart(5)} ${when} ${name}\n`;
  };
  let stdout = '';
  let stderr = '';
  const targets = operands.length ? operands : ['.'];
  const listed = targets.map((operand) => ({ operand, path: normalise(operand, context.cwd) }));
  for (const { operand, path } of listed) {
    if (!tree.directories.has(path) && !tree.files.has(path)) stderr += `ls: cannot access '${operand}': No such file or directory\n`;
  }
  const found = listed.filter(({ path }) => tree.directories.has(path) || tree.files.has(path));
  for (const { operand, path } of found.filter(({ path }) => tree.files.has(path))) stdout += line(path, operand);
  const dirs = found.filter(({ path }) => tree.directories.has(path));
  for (const { operand, path } of dirs) {
    if (found.length > 1) stdout += `${stdout ? '\n' : ''}${operand}:\n`;
    let names = entriesOf(tree, path);
    if (!flags.has('a') && !flags.has('A')) names = names.filter((n) => !n.startsWith('.'));
    if (long) stdout += `total ${names.length * 4}\n`;
    if (flags.has('a')) stdout += line(path, '.') + line(parentOf(path), '..');
    for (const name of names) stdout += line(path === '/' ? `/${name}` : `${path}/${name}`, name);
  }
  return { exitCode: stderr ? 2 : 0, stdout, stderr };
};

const cat: ExecCommand = (args, context) => {
  const tree = treeOf(context);
  let stdout = '';
  let stderr = '';
  for (const operand of args.filter((a) => a !== '--')) {
    const path = normalise(operand, context.cwd);
    if (tree.directories.has(path)) stderr += `cat: ${operand}: Is a directory\n`;
    else if (!tree.files.has(path)) stderr += `cat: ${operand}: No such file or directory\n`;
    else stdout += tree.files.get(path);
  }
  return { exitCode: stderr ? 1 : 0, stdout, stderr };
};

const df: ExecCommand = (args, context) => {
  const { pod } = context;
  const human = args.includes('-h');
  const gb = (n: number) => (human ? `${n}G` : String(n * 1024 * 1024));
  const rows = [
    ['overlay', pod.containerDiskInGb, '/'],
    ['tmpfs', 64, '/dev'],
    ...(pod.volumeInGb > 0 || pod.networkVolume ? [[pod.networkVolume ? 'mfs#runpod' : '/dev/sdb', pod.volumeInGb, pod.volumeMountPath] as const] : []),
  ] as const;
  const head = `Filesystem     ${human ? '  Size  Used Avail Use%' : '1K-blocks    Used Available Use%'} Mounted on\n`;
  return ok(head + rows.map(([fs, size, at]) => `${String(fs).padEnd(15)}${gb(size).padStart(human ? 6 : 9)} ${(human ? '0' : '0').padStart(human ? 5 : 7)} ${gb(size).padStart(human ? 5 : 9)}   0% ${at}\n`).join(''));
};

// ---- nvidia-smi ------------------------------------------------------------------------------------

/** Power caps as nvidia-smi shows them, in watts; anything else reads 300 W. */
const POWER_CAP_W: Readonly<Record<string, number>> = {
  'NVIDIA RTX A4000': 140,
  'NVIDIA GeForce RTX 4090': 450,
  'NVIDIA L40S': 350,
  'NVIDIA A100 80GB PCIe': 300,
  'NVIDIA H100 80GB HBM3': 700,
  'NVIDIA B200': 1000,
};
/** The driver each CUDA version of the hosts comes with. */
const DRIVER_OF_CUDA: Readonly<Record<string, string>> = { '12.4': '550.127.05', '12.6': '560.35.03', '12.8': '570.124.06' };

interface Gpu {
  index: number;
  name: string;
  memoryMiB: number;
  busId: string;
  uuid: string;
  powerCapW: number;
}

function gpusOf(context: ExecContext): Gpu[] {
  const { pod } = context;
  const hex = [...pod.id].map((c) => c.charCodeAt(0).toString(16)).join('').padEnd(32, '0');
  return Array.from({ length: pod.gpuCount }, (_, index) => ({
    index,
    name: pod.gpuTypeId ?? '',
    memoryMiB: Math.round(pod.gpuMemoryInGb * 1024 * 0.9994),
    busId: `00000000:${(index + 1).toString(16).toUpperCase().padStart(2, '0')}:00.0`,
    uuid: `GPU-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${index.toString().padStart(4, '0')}-${hex.slice(16, 28)}`,
    powerCapW: POWER_CAP_W[pod.gpuTypeId ?? ''] ?? 300,
  }));
}

/** The fields `--query-gpu=` knows, with and without units. */
const QUERY_FIELDS: Readonly<Record<string, { header: string; value: (gpu: Gpu, context: ExecContext, units: boolean) => string }>> = {
  index: { header: 'index', value: (g) => String(g.index) },
  name: { header: 'name', value: (g) => g.name },
  uuid: { header: 'uuid', value: (g) => g.uuid },
  count: { header: 'count', value: (_g, c) => String(c.pod.gpuCount) },
  'pci.bus_id': { header: 'pci.bus_id', value: (g) => g.busId },
  driver_version: { header: 'driver_version', value: (_g, c) => driverOf(c) },
  'memory.total': { header: 'memory.total [MiB]', value: (g, _c, u) => `${g.memoryMiB}${u ? ' MiB' : ''}` },
  'memory.used': { header: 'memory.used [MiB]', value: (_g, _c, u) => `1${u ? ' MiB' : ''}` },
  'memory.free': { header: 'memory.free [MiB]', value: (g, _c, u) => `${g.memoryMiB - 1}${u ? ' MiB' : ''}` },
  'utilization.gpu': { header: 'utilization.gpu [%]', value: (_g, _c, u) => `0${u ? ' %' : ''}` },
  'temperature.gpu': { header: 'temperature.gpu', value: () => '34' },
  'power.limit': { header: 'power.limit [W]', value: (g, _c, u) => `${g.powerCapW.toFixed(2)}${u ? ' W' : ''}` },
};

const driverOf = (context: ExecContext) => DRIVER_OF_CUDA[context.pod.cudaVersion ?? ''] ?? '570.124.06';

const NVIDIA_SMI_USAGE = "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n";

const nvidiaSmi: ExecCommand = (args, context) => {
  if (context.pod.gpuTypeId === undefined) return fail(127, 'exec: "nvidia-smi": executable file not found in $PATH\n');
  const gpus = gpusOf(context);
  if (gpus.length === 0) return fail(6, 'No devices were found\n');
  if (args.length === 1 && (args[0] === '-L' || args[0] === '--list-gpus')) return ok(gpus.map((g) => `GPU ${g.index}: ${g.name} (UUID: ${g.uuid})\n`).join(''));
  const query = args.find((a) => a.startsWith('--query-gpu='));
  if (query) {
    const format = args.find((a) => a.startsWith('--format='))?.slice('--format='.length).split(',') ?? [];
    if (!format.includes('csv') || args.length !== 2) return fail(2, NVIDIA_SMI_USAGE);
    const names = query.slice('--query-gpu='.length).split(',').map((f) => f.trim());
    const unknown = names.find((n) => !QUERY_FIELDS[n]);
    if (unknown) return fail(2, `Field "${unknown}" is not a valid field to query.\n\n`);
    const units = !format.includes('nounits');
    const header = format.includes('noheader') ? '' : `${names.map((n) => QUERY_FIELDS[n]!.header).join(', ')}\n`;
    return ok(header + gpus.map((g) => `${names.map((n) => QUERY_FIELDS[n]!.value(g, context, units)).join(', ')}\n`).join(''));
  }
  if (args.length > 0) return fail(2, NVIDIA_SMI_USAGE);
  return ok(nvidiaSmiTable(gpus, context));
};

function nvidiaSmiTable(gpus: readonly Gpu[], context: ExecContext): string {
  const driver = driverOf(context);
  const rule = `+${'-'.repeat(41)}+${'-'.repeat(24)}+${'-'.repeat(22)}+`;
  const wide = `+${'-'.repeat(89)}+`;
  const row = (a: string, b: string, c: string) => `|${a.padEnd(41)}|${b.padStart(24)}|${c.padStart(22)}|`;
  const date = new Date(context.pod.now).toUTCString().replace(/^(\w+), (\d+) (\w+) (\d+) ([\d:]+) GMT$/, (_m, day: string, d: string, mon: string, y: string, t: string) => `${day} ${mon} ${d.padStart(2)} ${t} ${y}`);
  const lines = [
    date,
    wide,
    `| NVIDIA-SMI ${driver.padEnd(22)} Driver Version: ${driver.padEnd(14)} CUDA Version: ${(context.pod.cudaVersion ?? '12.8').padEnd(9)}|`,
    `|${rule.slice(1)}`,
    row(' GPU  Name                 Persistence-M', ' Bus-Id          Disp.A ', ' Volatile Uncorr. ECC '),
    row(' Fan  Temp   Perf          Pwr:Usage/Cap', '           Memory-Usage ', ' GPU-Util  Compute M. '),
    row('', '', '               MIG M. '),
    rule.replace(/-/g, '=').replace(/^\+|\+$/g, '|'),
  ];
  for (const g of gpus) {
    lines.push(
      row(`${String(g.index).padStart(4)}  ${g.name.slice(0, 28).padEnd(28)}   On `, `   ${g.busId} Off `, '                  Off '),
      row(` 30%   34C    P8  ${`${Math.round(g.powerCapW * 0.05)}W /  ${g.powerCapW}W`.padStart(22)} `, `${`1MiB / ${String(g.memoryMiB).padStart(6)}MiB`.padStart(23)} `, '      0%      Default '),
      row('', '', '                  N/A '),
      rule,
    );
  }
  lines.push(
    ' '.repeat(89),
    wide,
    `| Processes:${' '.repeat(78)}|`,
    `|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |`,
    `|        ID   ID                                                               Usage      |`,
    `|${'='.repeat(89)}|`,
    `|  No running processes found${' '.repeat(61)}|`,
    wide,
  );
  return `${lines.join('\n')}\n`;
}

// ---- sh -c and bash -c -------------------------------------------------------------------------------

/** What a login shell in the image sets when the pod's env does not. */
const SHELL_DEFAULTS: Readonly<Record<string, string>> = { HOME: '/root', USER: 'root', SHELL: '/bin/bash', PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' };

type Token = { word: string } | { op: '&&' | '||' | ';' };

const UNSUPPORTED = 'pipes, redirections, background jobs and command substitution are not emulated (only commands joined by &&, || and ;)';

/** Splits a command string into words and list operators; quotes, backslashes and `$NAME`/`${NAME}` as sh reads them. */
function tokenize(text: string, env: Readonly<Record<string, string>>): Token[] | string {
  const tokens: Token[] = [];
  let word: string | undefined;
  const push = () => {
    if (word !== undefined) tokens.push({ word });
    word = undefined;
  };
  const variable = (at: number): [string, number] => {
    const braced = /^\$\{([A-Za-z_]\w*)\}/.exec(text.slice(at)) ?? /^\$([A-Za-z_]\w*)/.exec(text.slice(at));
    if (!braced) return ['$', at + 1];
    return [env[braced[1]!] ?? SHELL_DEFAULTS[braced[1]!] ?? '', at + braced[0].length];
  };
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (c === ' ' || c === '\t') {
      push();
      i++;
    } else if (c === '\n' || c === ';') {
      push();
      tokens.push({ op: ';' });
      i++;
    } else if (text.startsWith('&&', i) || text.startsWith('||', i)) {
      push();
      tokens.push({ op: text.slice(i, i + 2) as '&&' | '||' });
      i += 2;
    } else if ('|&<>`'.includes(c) || text.startsWith('$(', i)) {
      return UNSUPPORTED;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return 'unterminated quoted string';
      word = (word ?? '') + text.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      let part = '';
      for (; j < text.length && text[j] !== '"'; ) {
        if (text[j] === '\\' && '"\\$`'.includes(text[j + 1] ?? '')) {
          part += text[j + 1];
          j += 2;
        } else if (text[j] === '$') {
          if (text.startsWith('$(', j)) return UNSUPPORTED;
          const [value, next] = variable(j);
          part += value;
          j = next;
        } else if (text[j] === '`') {
          return UNSUPPORTED;
        } else part += text[j++];
      }
      if (j >= text.length) return 'unterminated quoted string';
      word = (word ?? '') + part;
      i = j + 1;
    } else if (c === '\\') {
      word = (word ?? '') + (text[i + 1] ?? '');
      i += 2;
    } else if (c === '$') {
      const [value, next] = variable(i);
      word = (word ?? '') + value;
      i = next;
    } else if (c === '#' && word === undefined) {
      while (i < text.length && text[i] !== '\n') i++;
    } else {
      word = (word ?? '') + c;
      i++;
    }
  }
  push();
  return tokens;
}

/** `sh -c` (dash's messages) or `bash -c` (bash's): runs a list of commands of the table, and `cd`, `exit`. */
function shell(name: 'sh' | 'bash'): ExecCommand {
  const notFound = name === 'sh' ? (cmd: string) => `sh: 1: ${cmd}: not found\n` : (cmd: string) => `bash: line 1: ${cmd}: command not found\n`;
  return async (args, context) => {
    if (args[0] !== '-c' || args.length < 2) return fail(2, `${name}: this emulator runs only ${name} -c 'commands'\n`);
    const tokens = tokenize(args[1]!, context.env);
    if (typeof tokens === 'string') return fail(2, `${name}: 1: ${tokens}\n`);
    // Each command with the operator before it; a command that is skipped leaves the status as it
    // was, which makes `a && b || c` run c when a fails, as POSIX's left-associative lists do.
    const list: Array<{ words: string[]; after: string | undefined }> = [];
    let words: string[] = [];
    let after: string | undefined;
    for (const token of [...tokens, { op: ';' as const }]) {
      if ('word' in token) {
        words.push(token.word);
        continue;
      }
      if (words.length > 0) list.push({ words, after });
      else if (token.op !== ';' || (after !== undefined && after !== ';')) return fail(2, `${name}: 1: Syntax error: "${token.op}" unexpected\n`);
      words = [];
      after = token.op;
    }
    let cwd = context.cwd;
    let status = 0;
    let stdout = '';
    let stderr = '';
    for (const { words: [program, ...rest], after } of list) {
      if ((after === '&&' && status !== 0) || (after === '||' && status === 0)) continue;
      if (program === 'exit') return { exitCode: rest[0] === undefined ? status : Number(rest[0]) & 255, stdout, stderr };
      if (program === 'cd') {
        const target = normalise(rest[0] ?? '/root', cwd);
        const found = treeOf(context).directories.has(target);
        if (found) cwd = target;
        else stderr += `${name}: 1: cd: can't cd to ${rest[0]}\n`;
        status = found ? 0 : 2;
      } else if (!context.programs().includes(program!)) {
        stderr += notFound(program!);
        status = 127;
      } else {
        const result = await context.run([program!, ...rest], cwd);
        stdout += result.stdout;
        stderr += result.stderr;
        status = result.exitCode;
      }
    }
    return { exitCode: status, stdout, stderr };
  };
}

// ---- the set -------------------------------------------------------------------------------------------

/** The programs every emulated pod has; `emulator.exec.define(name, …)` adds to or replaces them. */
export const COMMON_COMMANDS: Readonly<Record<string, ExecCommand>> = {
  echo: (args) => ok(`${args.join(' ')}\n`),
  true: () => ok(),
  false: () => ({ exitCode: 1 }),
  pwd: (_args, { cwd }) => ok(`${cwd}\n`),
  env: (_args, { env }) => ok(envLines(env)),
  printenv: (args, { env }) => {
    if (args.length === 0) return ok(envLines(env));
    const found = args.filter((name) => Object.hasOwn(env, name));
    return { exitCode: found.length === args.length ? 0 : 1, stdout: found.map((name) => `${env[name]}\n`).join('') };
  },
  ls,
  cat,
  df,
  'nvidia-smi': nvidiaSmi,
  sh: shell('sh'),
  bash: shell('bash'),
  hostname: (_args, { pod }) => ok(`${pod.id}\n`),
  whoami: () => ok('root\n'),
  nproc: (_args, { pod }) => ok(`${pod.vcpuCount}\n`),
  uname: (args, { pod }) => {
    const all = args.includes('-a');
    if (args.length === 0 || args.includes('-s')) return ok(all ? '' : 'Linux\n');
    if (all) return ok(`Linux ${pod.id} 6.8.0-49-generic #49~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC x86_64 x86_64 x86_64 GNU/Linux\n`);
    if (args.includes('-r')) return ok('6.8.0-49-generic\n');
    if (args.includes('-m')) return ok('x86_64\n');
    if (args.includes('-n')) return ok(`${pod.id}\n`);
    return fail(1, `uname: invalid option -- '${args[0]!.replace(/^-+/, '')}'\n`);
  },
  python: python('python'),
  python3: python('python3'),
};

function python(name: string): ExecCommand {
  return (args) => {
    if (args[0] === '--version' || args[0] === '-V') return ok('Python 3.11.10\n');
    return fail(2, `${name}: only --version is emulated; define '${name}' with emulator.exec.define to run scripts\n`);
  };
}
