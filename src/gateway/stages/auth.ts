// Stage "auth": who asks. A gateway token (its scope from the configuration), the caller's own
// RunPod key in pass-through mode, or the anonymous caller (loopback only, no tokens configured).
// Sets the caller, and with it the scrubber of its answers.
import type { RunpodClient } from '../../client.js';
import type { GatewaySettings } from '../config.js';
import type { Caller, GatewayContext } from '../context.js';
import { checkPassThroughKey, type createPassThroughPool } from '../pass-through.js';
import type { Stage } from '../pipeline.js';
import { Refusal } from '../protocol.js';
import type { Scrub } from '../scrub.js';
import { bearerOf } from '../tokens.js';

export interface AuthStageOptions {
  readonly settings: GatewaySettings;
  /** The server's client (undefined in pass-through mode). */
  readonly serverClient: RunpodClient | undefined;
  /** The gateway's own secrets' scrubber (its key and tokens: a reload changes them). */
  readonly ownScrub: () => Scrub;
  readonly passThroughClients: ReturnType<typeof createPassThroughPool>;
  /** Refuses (429) an address RunPod has refused too many keys from (pass-through mode). */
  readonly checkAddress: (address: string) => void;
  /**
   * A caller served without a credential (keyless catalog reads), in either mode, given the 401 it
   * is answered for anything else; undefined refuses every request without a credential (401).
   */
  readonly publicCaller?: ((context: GatewayContext, refused: Refusal) => Caller | undefined) | undefined;
}

export function authStage(options: AuthStageOptions): Stage {
  const { settings, passThroughClients } = options;
  const serverClient = () => options.serverClient!;
  return {
    name: 'auth',
    run(context, next) {
      context.caller = authenticate(context);
      return next();
    },
  };

  function authenticate(context: GatewayContext): Caller {
    const { request, url, address } = context;
    const config = settings.current;
    const bearer = bearerOf(request);
    if (config.passThrough) {
      const key = url.searchParams.get('api_key') || bearer;
      if (!key) {
        const refused = new Refusal(401, 'a RunPod API key is required (?api_key= or Authorization: Bearer)', 'UNAUTHENTICATED', { 'www-authenticate': 'Bearer' });
        const open = options.publicCaller?.(context, refused);
        if (open) return open;
        throw refused;
      }
      // An address RunPod has refused too many keys from is not relayed again for a while.
      options.checkAddress(address);
      checkPassThroughKey(key);
      const entry = passThroughClients.get(key);
      // The caller's own key, scrubbed from its own answer only (it never enters shared state).
      return { kind: 'pass-through', name: 'pass-through', scope: 'write', credential: key, client: () => entry.client, address, scrub: entry.scrub, onRefusedKey: () => passThroughClients.drop(key), onAcceptedKey: () => passThroughClients.accept(key) };
    }
    if (config.anonymous) return { kind: 'anonymous', name: 'anonymous', scope: 'write', credential: undefined, client: serverClient, address, scrub: options.ownScrub() };
    if (!bearer) {
      const refused = new Refusal(401, 'a gateway token is required: Authorization: Bearer <token>', 'UNAUTHENTICATED', { 'www-authenticate': 'Bearer' });
      const open = options.publicCaller?.(context, refused);
      if (open) return open;
      throw refused;
    }
    const entry = config.tokens.get(bearer);
    if (!entry) throw new Refusal(401, 'the gateway token is not known', 'UNAUTHENTICATED', { 'www-authenticate': 'Bearer error="invalid_token"' });
    return { kind: 'token', name: entry.name, scope: entry.scope, limits: entry, credential: bearer, client: serverClient, address, scrub: options.ownScrub() };
  }
}
