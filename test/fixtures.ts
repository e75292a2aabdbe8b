import type { Pod } from '../src/index.js';

export function podFixture(overrides: Partial<Pod> = {}): Pod {
  return {
    id: 'pod-abc123',
    name: 'trainer',
    imageName: 'runpod/pytorch:2.4.0',
    env: ['MODEL=llama=3', 'EMPTY='],
    machineId: 'm-1',
    desiredStatus: 'RUNNING',
    lastStatusChange: null,
    costPerHr: 0.69,
    gpuCount: 1,
    machine: { podHostId: 'pod-abc123-64411b8e' },
    runtime: {
      uptimeInSeconds: 42,
      gpus: [{ id: 'GPU-1', gpuUtilPercent: 3, memoryUtilPercent: 10 }],
      container: { cpuPercent: 1, memoryPercent: 5 },
      ports: [{ ip: '100.65.0.2', isIpPublic: false, privatePort: 8888, publicPort: 60001, type: 'http' }],
    },
    ...overrides,
  };
}
