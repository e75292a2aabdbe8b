// What changed in the package's generated types when schema.graphql became RunPod's whole public
// schema (round 4): the result types of the package's own operations are the same, field for
// field; the inputs gained the fields the platform's inputs have beyond the old subset.
import { describe, expectTypeOf, it } from 'vitest';
import type { GpuLowestPriceInput, PodFindAndDeployOnDemandInput, PodResumeInput, SavingsPlanInput } from '../../src/graphql/index.js';
import type { GpuTypesQuery, MyPodsQuery, Pod, PodQuery, StopPodMutation } from '../../src/index.js';

describe('the whole schema, as the generated types show it', () => {
  it('keeps the result types of the package operations', () => {
    expectTypeOf<keyof Pod>().toEqualTypeOf<
      'id' | 'name' | 'imageName' | 'env' | 'machineId' | 'desiredStatus' | 'lastStatusChange' | 'costPerHr' | 'gpuCount' | 'machine' | 'runtime'
    >();
    expectTypeOf<NonNullable<PodQuery['pod']>>().toEqualTypeOf<Pod>();
    expectTypeOf<NonNullable<NonNullable<MyPodsQuery['myself']>['pods']>[number]>().toEqualTypeOf<Pod | null>();
    expectTypeOf<keyof NonNullable<StopPodMutation['podStop']>>().toEqualTypeOf<'id' | 'desiredStatus'>();
    expectTypeOf<keyof NonNullable<NonNullable<GpuTypesQuery['gpuTypes']>[number]>>().toEqualTypeOf<
      'id' | 'displayName' | 'memoryInGb' | 'secureCloud' | 'communityCloud' | 'lowestPrice'
    >();
  });

  it("adds the platform's input fields the subset lacked, all optional", () => {
    type Added = 'aiApiId' | 'ideAiApiId' | 'deployCost' | 'instanceIds' | 'savingsPlan';
    expectTypeOf<Pick<PodFindAndDeployOnDemandInput, Added>>().toEqualTypeOf<{
      aiApiId?: string | null | undefined;
      ideAiApiId?: string | null | undefined;
      deployCost?: number | null | undefined;
      instanceIds?: Array<string | null | undefined> | null | undefined;
      savingsPlan?: SavingsPlanInput | null | undefined;
    }>();
    expectTypeOf<Pick<GpuLowestPriceInput, 'isCluster' | 'podCount' | 'throughput'>>().toEqualTypeOf<{
      isCluster?: boolean | null | undefined;
      podCount?: number | null | undefined;
      throughput?: number | null | undefined;
    }>();
    // Unchanged: the live resume input still has no allowedCudaVersions.
    expectTypeOf<keyof PodResumeInput>().toEqualTypeOf<'podId' | 'gpuCount' | 'syncMachine' | 'computeType'>();
  });
});
