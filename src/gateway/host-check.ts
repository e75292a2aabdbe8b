// Which host names the gateway answers, and which page origins are its own. Against DNS rebinding:
// a page whose name is re-pointed at 127.0.0.1 reaches a loopback gateway as its own origin, but
// its requests still carry its own name in `Host` (or in an absolute-form target).
import { isLoopbackName, refusedHost } from '../emulator/http-guards.js';
import { ValidationError } from '../errors.js';
import { Refusal } from './protocol.js';

/** What the gateway answers, and whose pages are its own. */
export interface HostPolicy {
  /** A 403 Refusal for a request whose URL (`url`, parsed) or `Host` names a host the gateway does not answer. */
  refuse(request: Request, url: URL): Refusal | undefined;
  /**
   * True for an origin that is the gateway's own: the address `listen` bound, or, for a request
   * whose Host passed the check, that very Host with the scheme the operator declared for it
   * (`publicScheme` for `allowedHosts` names, http for loopback names): a page served through a
   * proxy in front of the gateway (nginx, `vite preview`) on the same origin. The scheme is never
   * taken from the request.
   */
  isOwnOrigin(origin: string, request?: Request): boolean;
  /** The address the listener bound (`http://HOST:PORT`): its host is answered, and its origins are the gateway's own. */
  bind(url: string): void;
}

const WILDCARD = new Set(['0.0.0.0', '[::]']);

/**
 * The policy for `allowed` (extra host names, for a proxy in front; `'*'`: any): loopback names,
 * the listen host, and these.
 */
export function createHostPolicy(allowed: '*' | readonly string[] | undefined, publicScheme: 'https' | 'http' = 'https'): HostPolicy {
  if (publicScheme !== 'https' && publicScheme !== 'http') throw new ValidationError('publicScheme', "must be 'https' or 'http'");
  const names = new Set<string>();
  if (allowed !== undefined && allowed !== '*') {
    if (!Array.isArray(allowed)) throw new ValidationError('allowedHosts', "must be a list of host names, or '*'");
    for (const name of allowed) {
      let parsed: string | undefined;
      try {
        parsed = typeof name === 'string' && !/[@/\\?#:\s]/.test(name.replace(/^\[.*\]$/, '')) ? new URL(`http://${name}`).hostname : undefined;
      } catch {}
      if (!parsed || parsed !== name.toLowerCase()) {
        const scheme = typeof name === 'string' ? /^(https?):\/\/([^/:?#]+)/i.exec(name) : null;
        if (scheme) throw new ValidationError('allowedHosts', `takes a host name, not a URL: write ${scheme[2]!.toLowerCase()}${scheme[1]!.toLowerCase() === 'http' ? ', and declare the scheme pages use with publicScheme: http' : ' (pages on it are https by default)'}`);
        throw new ValidationError('allowedHosts', 'each must be a host name without scheme or port, such as gateway.example.com');
      }
      names.add(parsed);
    }
  }
  const own = new Set<string>();
  const isAllowed = (hostname: string) => isLoopbackName(hostname) || names.has(hostname);
  return {
    refuse(request, url) {
      if (allowed === '*') return undefined;
      const shown = refusedHost(request, isAllowed, url);
      if (shown === undefined) return undefined;
      return new Refusal(403, `Host ${JSON.stringify(shown)} is not allowed: the gateway answers loopback names and its listen host only (see --allowed-host)`, 'HOST_NOT_ALLOWED');
    },
    isOwnOrigin(origin, request) {
      if (own.has(origin)) return true;
      const host = request?.headers.get('host')?.toLowerCase();
      if (!host) return false;
      let hostname: string;
      try {
        hostname = new URL(`http://${host}`).hostname;
      } catch {
        return false;
      }
      // The Host passed the check already: it names a loopback name, the listen host or an allowed one.
      if (isLoopbackName(hostname)) return origin === `http://${host}` || origin === `https://${host}`;
      return (names.has(hostname) || allowed === '*') && origin === `${publicScheme}://${host}`;
    },
    bind(url) {
      const { hostname, port, protocol } = new URL(url);
      if (!WILDCARD.has(hostname)) names.add(hostname);
      const at = (host: string) => `${protocol}//${host}${port ? `:${port}` : ''}`;
      own.add(at(hostname));
      if (isLoopbackName(hostname)) for (const host of ['localhost', '127.0.0.1', '[::1]']) own.add(at(host));
    },
  };
}

// Each gateway's policy, for its Node listener to bind (the `Gateway` interface stays a fetch handler).
const policies = new WeakMap<object, HostPolicy>();

export const attachHostPolicy = (gateway: object, policy: HostPolicy): void => void policies.set(gateway, policy);

/** Tells `gateway` the address it is served on (the Node listener calls it once bound). */
export const bindGatewayAddress = (gateway: object, url: string): void => policies.get(gateway)?.bind(url);
