import { describe, expectTypeOf, it } from 'vitest';
import {
  createRunpodClient,
  transportOf,
  TransportUnsupportedError,
  ValidationError,
  type DeployCpuPodInput,
  type DeployPodInput,
  type GraphQLCallOptions,
  type Pod,
  type PodCreateCallOptions,
  type PodFieldsFragment,
  type PodsTransport,
  type PodStatus,
  type ResumePodInput,
  type RunpodClientOptions,
  type TransportChangeEvent,
  type WaitUntilReadyOptions,
} from '../../src/index.js';
import type { PodResumeInput } from '../../src/graphql/index.js';

const rp = createRunpodClient({ apiKey: 'k', podsTransport: 'auto' });

describe('rp.pods keeps its public types whichever API carries it', () => {
  it('results are the generated GraphQL types', () => {
    expectTypeOf<Pod>().toEqualTypeOf<PodFieldsFragment>();
    expectTypeOf(rp.pods.deploy).parameters.toEqualTypeOf<[DeployPodInput, PodCreateCallOptions?]>();
    expectTypeOf(rp.pods.deploy).returns.resolves.toEqualTypeOf<Pod>();
    expectTypeOf(rp.pods.deployCpu).parameters.toEqualTypeOf<[DeployCpuPodInput, PodCreateCallOptions?]>();
    expectTypeOf(rp.pods.deployCpu).returns.resolves.toEqualTypeOf<Pod>();
    expectTypeOf(rp.pods.resume).parameters.toEqualTypeOf<[ResumePodInput, GraphQLCallOptions?]>();
    expectTypeOf<ResumePodInput>().toEqualTypeOf<PodResumeInput>();
    expectTypeOf(rp.pods.resume).returns.resolves.toEqualTypeOf<Pod>();
    expectTypeOf(rp.pods.stop).parameters.toEqualTypeOf<[string, GraphQLCallOptions?]>();
    expectTypeOf(rp.pods.stop).returns.resolves.toEqualTypeOf<{ id: string; desiredStatus: PodStatus }>();
    expectTypeOf(rp.pods.terminate).returns.resolves.toEqualTypeOf<void>();
    expectTypeOf(rp.pods.get).returns.resolves.toEqualTypeOf<Pod | null>();
    expectTypeOf(rp.pods.list).returns.resolves.toEqualTypeOf<Pod[]>();
    expectTypeOf(rp.pods.findByMarker).parameters.toEqualTypeOf<[string, GraphQLCallOptions?]>();
    expectTypeOf(rp.pods.findByMarker).returns.resolves.toEqualTypeOf<Pod | null>();
    expectTypeOf(rp.pods.waitUntilReady).parameters.toEqualTypeOf<[string, WaitUntilReadyOptions?]>();
    expectTypeOf(rp.pods.waitUntilReady).returns.resolves.toEqualTypeOf<Pod>();
  });

  it('a deploy needs a GPU type and an image or a template', () => {
    // @ts-expect-error: no GPU type, no image
    void rp.pods.deploy({});
    // @ts-expect-error: no GPU type
    void rp.pods.deploy({ imageName: 'x', gpuCount: 1 });
    // @ts-expect-error: no image nor template
    void rp.pods.deploy({ gpuTypeId: 'NVIDIA RTX A4000' });
    void rp.pods.deploy({ imageName: 'x', gpuTypeId: 'NVIDIA RTX A4000' });
    void rp.pods.deploy({ templateId: 't', gpuTypeIdList: ['NVIDIA RTX A4000'], gpuCount: 2, cloudType: 'ALL', env: { A: 'b' } });
  });

  it('the transport options, event and tag', () => {
    expectTypeOf<RunpodClientOptions['podsTransport']>().toEqualTypeOf<PodsTransport | undefined>();
    expectTypeOf<PodsTransport>().toEqualTypeOf<'auto' | 'graphql' | 'rest'>();
    expectTypeOf<RunpodClientOptions['fallbackOnRateLimit']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<TransportChangeEvent['reason']>().toEqualTypeOf<'retired' | 'rate-limited'>();
    expectTypeOf(transportOf).returns.toEqualTypeOf<'graphql' | 'rest' | undefined>();
    expectTypeOf<TransportUnsupportedError>().toMatchTypeOf<ValidationError>();
    expectTypeOf<TransportUnsupportedError['fields']>().toEqualTypeOf<readonly string[]>();
    // @ts-expect-error: not a transport
    void createRunpodClient({ podsTransport: 'soap' });
  });
});
