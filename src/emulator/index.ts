// The `runpod-gql/emulator` entry: a local stand-in for the platform, for demos and for testing
// apps offline. It runs on any fetch runtime; `listen()` lives in `runpod-gql/emulator/node`.
export { createEmulator, EMULATOR_API_KEY, IN_PROCESS_BASE, type Emulator, type EmulatorClientOptions, type EmulatorEndpointSpec, type EmulatorOptions, type EmulatorRetained, type ListeningEmulator } from './create-emulator.js';
export { DEFAULT_GPU_TYPES, DEFAULT_HOSTS, type GpuTypeSpec, type HostSpec } from './catalog.js';
export type { EmulatorClock, SleepOptions } from './clock.js';
export type { BuildOutcome, EmulatorBuildSpec } from './rest-v2/builds.js';
export type { Fault, FaultRule } from './faults.js';
export { BUILT_IN_HANDLERS, type HandlerContext, type JobHandler, type WebhookFetch } from './queue.js';
export type { LoadBalancedDefinition, LoadBalancedRoute, LoadBalancedRouteContext } from './serverless-routes.js';
export { OPENAI_ECHO_MODEL } from './openai-routes.js';
export type { ExecCommand, ExecContext, ExecPodFacts, ExecResult } from './rest-v2/exec.js';
export { DEFAULT_SERVERLESS_LIMITS, type ServerlessLimitRoute, type ServerlessLimits, type ServerlessRouteLimit } from './serverless-limits.js';
