// Every command group of `runpod-gql`, in the order `--help` lists them. Adding a group is one new
// file in this folder and one line here (see src/cli/README.md).
import type { CommandGroup } from '../program.js';
import { emulator } from './emulator.js';
import { gateway } from './gateway.js';
import { gpus } from './gpus.js';
import { jobs } from './jobs.js';
import { podContainer } from './pod-container.js';
import { pods } from './pods.js';
import { secrets } from './secrets.js';

export const COMMANDS: readonly CommandGroup[] = [
  gpus,
  pods,
  podContainer,
  jobs,
  secrets,
  emulator,
  gateway,
];
