// The two kinds of no-source field (src/field-map/types.ts), held against this list: a field
// moves between kinds only by changing the map and this list together, on purpose.
import { buildSchema, isNonNullType, type GraphQLObjectType } from 'graphql';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIELD_MAP } from '../../src/field-map/index.js';

/** No caller decides anything from the value: null, no error, a warning. Each with why. */
const INFORMATIONAL: Readonly<Record<string, string>> = {
  'Pod.lowestBidPriceToResume': "a spot price: spot pods are discontinued, nothing can be bid",
  'Pod.dockerId': "a container id: no API call takes it",
  'Pod.port': "the legacy single port: ports and runtime.ports carry the mapping callers connect by",
  'Pod.latestTelemetry': "a utilisation snapshot for display; runtime carries live use",
  'PodMachineInfo.diskMBps': "a measured host speed, shown to people",
  'PodMachineInfo.maintenanceEnd': "a maintenance notice for people; the platform moves or stops the pods",
  'PodMachineInfo.maintenanceNote': "a maintenance notice for people",
  'PodMachineInfo.maintenanceStart': "a maintenance notice for people; the platform moves or stops the pods",
  'PodMachineInfo.maxDownloadSpeedMbps': "a measured host speed, shown to people",
  'PodMachineInfo.maxUploadSpeedMbps': "a measured host speed, shown to people",
  'PodMachineInfo.note': "free text for people",
  'GpuType.cudaCores': "a data-sheet figure; the GPU type id is what callers choose by",
  'GpuType.oneWeekPrice': "a savings-plan quote: no create over REST v2 takes a savings plan, so no caller acts on it",
  'GpuType.oneMonthPrice': "a savings-plan quote: no create over REST v2 takes a savings plan",
  'GpuType.threeMonthPrice': "a savings-plan quote: no create over REST v2 takes a savings plan",
  'GpuType.sixMonthPrice': "a savings-plan quote: no create over REST v2 takes a savings plan",
  'GpuType.oneYearPrice': "a savings-plan quote: no create over REST v2 takes a savings plan",
  'GpuType.communitySpotPrice': "a spot price: spot pods are discontinued",
  'GpuType.secureSpotPrice': "a spot price: spot pods are discontinued",
  'LowestPrice.minimumBidPrice': "a spot price: spot pods are discontinued",
  'CpuType.manufacturer': "a data-sheet fact; the flavour id is what callers choose by",
  'CpuType.cores': "a data-sheet figure; the flavour's vCPUs are what a pod gets",
  'CpuType.threadsPerCore': "a data-sheet figure",
  'User.githubAccountInfo': "profile information for people",
  'User.onboardingInfo': "what the console asked at sign-up",
  'User.information': "profile information (name, address)",
  'User.notifyPodsStale': "an e-mail setting of the console",
  'User.notifyPodsGeneral': "an e-mail setting of the console",
  'User.notifyLowBalance': "an e-mail setting of the console",
  'User.creditAlertThreshold': "an e-mail setting of the console (when to send the alert), not a limit",
  'User.notifyOther': "an e-mail setting of the console",
  'Secret.updatedAt': "a date for people; lastUpdatedAt dates the value",
  'Secret.lastRetrievedAt': "a date for people",
  'PodTemplate.readme': "prose for people",
  'PodTemplate.runtimeInMin': "a statistic for the template's page",
  'PodTemplate.presentationOrder': "the console's sort order",
};

/**
 * A null would mislead a caller's decision: ids, counts, money (balance, spend, cost, prices that
 * buy), limits, statuses, availability and stock, links to other objects, settings a caller sends
 * back, host data, and every mutation. Null with an error, as before.
 */
const DECISIVE: readonly string[] = [
  'Mutation.podBidResume', 'Mutation.podRentInterruptable', 'Mutation.updateRegistryAuth', 'Pod.adjustedCostPerHr',
  'Pod.gpuPowerLimitPercent', 'Pod.gpus', 'Pod.volumeEncrypted', 'Pod.aiApiId',
  'Pod.apiKey', 'Pod.clusterCidr', 'Pod.vxlanId', 'Pod.vxlanPort',
  'Pod.clusterMembers', 'Pod.clusterNetwork', 'Pod.consumerUserId', 'Pod.costMultiplier',
  'Pod.registry', 'Pod.version', 'Pod.volumeKey', 'Pod.machineType',
  'Pod.slsVersion', 'Pod.testPod', 'Pod.ideAiApiId', 'Pod.hubReleaseId',
  'Pod.hubRelease', 'Pod.modelVersions', 'Pod.models', 'Pod.cpuFlavor',
  'Pod.endpoint', 'Pod.networkVolume', 'Pod.savingsPlans', 'Pod.ipAddress',
  'PodMachineInfo.id', 'PodMachineInfo.costPerHr', 'PodMachineInfo.currentPricePerGpu', 'PodMachineInfo.gpuAvailable',
  'PodMachineInfo.gpuType', 'PodMachineInfo.listed', 'PodMachineInfo.machineType', 'PodMachineInfo.runpodIp',
  'PodMachineInfo.supportPublicIp', 'PodMachineInfo.minPodGpuCount', 'PodMachineInfo.machineSystem', 'PodMachineInfo.cpuTypeId',
  'PodMachineInfo.cpuType', 'PodMachineInfo.cpuCount', 'PodMachineInfo.vcpuTotal', 'PodMachineInfo.vcpuReserved',
  'PodMachineInfo.memoryTotal', 'PodMachineInfo.memoryReserved', 'GpuType.clusterPrice', 'GpuType.throughput',
  'GpuType.minPodGpuCount', 'GpuType.nodeGroupGpuSizes', 'GpuType.nodeGroupDatacenters', 'LowestPrice.minMemory',
  'LowestPrice.minVcpu', 'LowestPrice.rentalPercentage', 'LowestPrice.rentedCount', 'LowestPrice.totalCount',
  'LowestPrice.minDownload', 'LowestPrice.minDisk', 'LowestPrice.minUpload', 'LowestPrice.countryCode',
  'LowestPrice.supportPublicIp', 'LowestPrice.compliance', 'LowestPrice.maxUnreservedGpuCount', 'LowestPrice.clusterPrice',
  'LowestPrice.gpuTypeDatacenters', 'DataCenter.location', 'DataCenter.storage', 'DataCenter.s3apiEnabled',
  'DataCenter.storageClusters', 'DataCenter.listed', 'DataCenter.pools', 'User.backgroundPods',
  'User.podsConnection', 'User.machines', 'User.hiddenMachines', 'User.machinesSummary',
  'User.id', 'User.authId', 'User.email', 'User.currentSpendPerHr',
  'User.machineQuota', 'User.referralEarned', 'User.signedTermsOfService', 'User.spendLimit',
  'User.stripeSavedPaymentId', 'User.stripeSavedPaymentLast4', 'User.templateEarned', 'User.multiFactorEnabled',
  'User.machineEarnings', 'User.machineEarningsCustomRange', 'User.networkStorageEarnings', 'User.underBalance',
  'User.minBalance', 'User.stripeAutoReloadAmount', 'User.stripeAutoPaymentThreshold', 'User.spendDetails',
  'User.maxServerlessConcurrency', 'User.clientLifetimeSpend', 'User.referralId', 'User.datacenters',
  'User.isAutoPayEnabled', 'User.enableBackupPayments', 'User.affiliateKey', 'User.hasActivated',
  'User.canRefer', 'User.referralUsageId', 'User.activeMigrations', 'User.userPreferences',
  'User.clientBalance', 'User.hostBalance', 'User.hostStripeLinked', 'User.stripeAccountId',
  'User.stripeReloadHistory', 'User.payoutHistory', 'User.dailyCharges', 'User.referral',
  'User.creditCodes', 'User.teams', 'User.ownedTeams', 'User.team',
  'User.teamMembership', 'User.teamScopes', 'User.isTeam', 'User.savingsPlans',
  'User.savingsPlan', 'User.serverlessDiscount', 'User.billing', 'User.csrRole',
  'User.impersonations', 'User.activeImpersonation', 'User.nodeGroups', 'User.cluster',
  'User.apiKeys', 'User.sharedApiKeys', 'User.paymentMethods', 'User.paymentMethodsByPriority',
  'User.defaultPaymentMethod', 'User.reservations', 'User.globalStoreBuckets', 'User.flashApps',
  'PodTemplate.advancedStart', 'PodTemplate.earned', 'PodTemplate.isRunpod', 'PodTemplate.boundEndpointId',
  'PodTemplate.portsConfig', 'PodTemplate.startScript', 'PodTemplate.config', 'PodTemplate.userId',
  'Endpoint.aiKey', 'Endpoint.pods', 'Endpoint.template', 'Endpoint.userId',
  'Endpoint.version', 'Endpoint.workersStandby', 'Endpoint.workersPFBTarget', 'Endpoint.instanceIds',
  'Endpoint.builds', 'Endpoint.activeBuildid', 'Endpoint.repo', 'Endpoint.hubRelease',
  'Endpoint.idePodId', 'Endpoint.modelStatus', 'Endpoint.workerState', 'Endpoint.webhookRequests',
  'Endpoint.flashEnvironmentId', 'Endpoint.modelReferences', 'Endpoint.compliance', 'NetworkVolume.storageClusterId',
  'NetworkVolume.storageType', 'NetworkVolume.flashEnvironmentId', 'ContainerRegistryAuth.userId', 'ContainerRegistryAuth.registryAuth',
  'Cluster.userId',
];

const kinds = () => {
  const out: Record<string, string> = {};
  for (const [type, map] of Object.entries(FIELD_MAP))
    for (const [field, entry] of Object.entries(map.fields)) if (entry.source.kind === 'none' && !entry.source.standIn) out[`${type}.${field}`] = entry.source.effect;
  return out;
};

describe('the kinds of no-source field', () => {
  it('every field with no source states its kind, and the kinds are the checked-in ones', () => {
    const expected = { ...Object.fromEntries(DECISIVE.map((c) => [c, 'decisive'])), ...Object.fromEntries(Object.keys(INFORMATIONAL).map((c) => [c, 'informational'])) };
    expect(kinds()).toEqual(expected);
    for (const [c, why] of Object.entries(INFORMATIONAL)) expect(why, c).toMatch(/\S{4}/);
  });

  it('an informational field is nullable (a null never nulls its parent) and never a mutation', () => {
    const schema = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));
    for (const c of Object.keys(INFORMATIONAL)) {
      const [type, field] = c.split('.') as [string, string];
      expect(type, c).not.toBe('Mutation');
      expect(isNonNullType((schema.getType(type) as GraphQLObjectType).getFields()[field]!.type), c).toBe(false);
    }
  });
});
