// The `runpod-gql/gateway` entry: RunPod's GraphQL schema served over GraphQL-over-HTTP by a
// process that holds the key, as a portable fetch handler. The Node listener is `runpod-gql/gateway/node`.
export { createGateway, type Gateway, type GatewayCondition, type GatewayOptions, type GatewayReload, type GatewayRequestInfo, type GatewayUpstream } from './create-gateway.js';
export type { GatewayLimits } from './limits.js';
export { LimitExceededError, type DocumentLimit } from './budget.js';
export { parseGatewayTokens, type GatewayScope, type GatewayToken } from './tokens.js';
export type { GatewayObserver } from './pipeline.js';
export type { Caller as GatewayCaller, GatewayContext } from './context.js';
