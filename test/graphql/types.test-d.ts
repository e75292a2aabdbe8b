import { describe, expectTypeOf, it } from 'vitest';
import {
  createRunpodClient,
  DeployPodDocument,
  GpuTypesDocument,
  MyPodsDocument,
  PodDocument,
  type DeployPodMutationVariables,
  type GpuOffer,
  type GpuType,
  type GpuTypesQuery,
  type Pod,
  type PodQuery,
  type PodStatus,
  type ResumePodInput,
} from '../../src/index.js';
import type { GpuLowestPriceInput, PodResumeInput } from '../../src/graphql/index.js';

const rp = createRunpodClient({ apiKey: 'k' });

describe('generated types', () => {
  it('follow the schema nullability', () => {
    expectTypeOf<Pod['id']>().toEqualTypeOf<string>();
    expectTypeOf<Pod['imageName']>().toEqualTypeOf<string | null>();
    expectTypeOf<Pod['env']>().toEqualTypeOf<Array<string | null> | null>();
    expectTypeOf<Pod['desiredStatus']>().toEqualTypeOf<PodStatus>();
    expectTypeOf<PodStatus>().toEqualTypeOf<'CREATED' | 'RUNNING' | 'RESTARTING' | 'EXITED' | 'PAUSED' | 'DEAD' | 'TERMINATED'>();
    expectTypeOf<NonNullable<Pod['machine']>['podHostId']>().toEqualTypeOf<string | null>();
    expectTypeOf<GpuType['id']>().toEqualTypeOf<string | null>();
    expectTypeOf<NonNullable<GpuType['lowestPrice']>['stockStatus']>().toEqualTypeOf<string | null>();
    expectTypeOf<GpuLowestPriceInput['gpuCount']>().toEqualTypeOf<number>();
    expectTypeOf<PodResumeInput['podId']>().toEqualTypeOf<string>();
    expectTypeOf<PodResumeInput>().toEqualTypeOf<ResumePodInput>();
    expectTypeOf<keyof PodResumeInput>().toEqualTypeOf<'podId' | 'gpuCount' | 'syncMachine' | 'computeType'>();
    expectTypeOf<DeployPodMutationVariables['input']['cloudType']>().toEqualTypeOf<'ALL' | 'COMMUNITY' | 'SECURE' | null | undefined>();
  });

  it('typed helpers return the generated shapes', () => {
    expectTypeOf(rp.pods.get).returns.resolves.toEqualTypeOf<Pod | null>();
    expectTypeOf(rp.pods.list).returns.resolves.toEqualTypeOf<Pod[]>();
    expectTypeOf(rp.pods.stop).returns.resolves.toEqualTypeOf<{ id: string; desiredStatus: PodStatus }>();
    expectTypeOf(rp.gpuTypes.offers).returns.resolves.toEqualTypeOf<GpuOffer[]>();
    expectTypeOf(rp.pods.deployCpu).returns.resolves.toEqualTypeOf<Pod>();
    expectTypeOf<GpuOffer['cloud']>().toEqualTypeOf<NonNullable<DeployPodMutationVariables['input']['cloudType']>>();
    expectTypeOf<GpuOffer>().not.toHaveProperty('minimumBidPrice');
  });

  it('graphql.request infers results and checks variables', () => {
    expectTypeOf(rp.graphql.request(PodDocument, { input: { podId: 'p' } })).resolves.toEqualTypeOf<PodQuery>();
    expectTypeOf(rp.graphql.request(GpuTypesDocument, { lowestPriceInput: { gpuCount: 1 } })).resolves.toEqualTypeOf<GpuTypesQuery>();
    // Operations without variables need none.
    void rp.graphql.request(MyPodsDocument);
    // @ts-expect-error a required variable is missing
    void rp.graphql.request(PodDocument, {});
    // @ts-expect-error variables are required for this operation
    void rp.graphql.request(PodDocument);
    // @ts-expect-error gpuCount is an Int!, not a string
    void rp.graphql.request(GpuTypesDocument, { lowestPriceInput: { gpuCount: '1' } });
    // @ts-expect-error an unknown input field is rejected
    void rp.pods.deploy({ imageName: 'x', gpuTypeId: 'y', gpuCount: 1, gpuType: 'typo' });
    // @ts-expect-error the live PodResumeInput has no allowedCudaVersions (the platform answers HTTP 400)
    void rp.pods.resume({ podId: 'p', gpuCount: 1, allowedCudaVersions: ['12.8'] });
    // @ts-expect-error deployCpuPod needs an instance type
    void rp.pods.deployCpu({ imageName: 'x' });
    // @ts-expect-error cloudType is an enum
    void rp.graphql.request(DeployPodDocument, { input: { cloudType: 'EVERYWHERE' } });
  });
});
