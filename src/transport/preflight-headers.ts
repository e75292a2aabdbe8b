/**
 * Request headers a page's client may send, allowed by every runpod-gql gateway's preflight: those
 * the package's client sends (`authorization`, `content-type`, `accept`; `user-agent` where a
 * runtime lets it; `x-team-id` with `teamId`) and `x-request-id` for a page's own tracing. Any other
 * (the client's `headers` option) needs the gateway's `--cors-header NAME`.
 */
export const PREFLIGHT_HEADERS: readonly string[] = ['authorization', 'content-type', 'accept', 'x-request-id', 'user-agent', 'x-team-id'];
