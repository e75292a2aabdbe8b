// The account (User: `myself`), its lists and settings, and the root fields that read it. `myself`
// is an empty object: each User field with a source is a call of its own (one read per document).
import { endpointDerivations } from './endpoints.js';
import { templateDerivations } from './templates.js';
import { call, decisive, holding, informational, path, type FieldEntry, type FieldMap } from './types.js';

/**
 * Every derivation the account's types name (PodTemplate, Endpoint), by name: the generic resolver
 * calls `accountDerivations[derive](restObject)`.
 */
export const accountDerivations: Readonly<Record<string, (rest: unknown) => unknown>> = { ...templateDerivations, ...endpointDerivations };

// RunPod's pages document these account reads with their answers, but print no path (checked on
// 2026-12-01): the client does not guess one. They stay decisive fields with no source (a null id,
// balance or limit would mislead a caller's decision). Once a path is published, adding it is one
// row per field, with nothing else to write (the executor, the emulator, the static pass and the
// docs follow the row; the contract test checks route and path once the contract copy has them):
//   id: read('GET /v2/<published path>', 'id'),
//   email: read('GET /v2/<published path>', 'email'),
//   clientBalance: read('GET /v2/<balance path>', 'balanceAmount'),
// (test/field-map/account-route-row.test.ts swaps such rows in and runs them on every executor.)
// What each page documents: reasons.ts.
/** The e-mails the console sends: settings for a person, read by no automation over the API. */
const NOTIFICATIONS = 'REST v2 has no notification settings route (which e-mails the console sends)';
/** Host (machine owner) data: REST v2 serves renters only. */
const hostOnly = decisive();

export const accountQueryFields: Readonly<Record<string, FieldEntry>> = {
  // No read of its own: its fields are.
  myself: holding('User', call([])),
};

export const accountMutationFields: Readonly<Record<string, FieldEntry>> = {
  // A create is sent once (a name is taken once): an ambiguous failure is a PossiblyCreatedError.
  secretCreate: holding('Secret', call(['POST /v2/account/secrets'])),
  secretValueUpdate: holding('Secret', call(['PATCH /v2/account/secrets/{id}'])),
  secretDescriptionUpdate: holding('Secret', call(['PATCH /v2/account/secrets/{id}'])),
  secretDelete: call(['DELETE /v2/account/secrets/{id}']),
  // pubKey holds every key, one a line; REST v2 replaces the whole list.
  updateUserSettings: holding('User', call(['PUT /v2/account/ssh-keys'])),
};

export const accountTypes: FieldMap = {
  User: {
    rest: null,
    scope: 'read',
    fields: {
      pods: holding('Pod', call(['GET /v2/pods'])),
      backgroundPods: decisive(),
      podsConnection: decisive(),
      machines: hostOnly,
      hiddenMachines: hostOnly,
      machinesSummary: hostOnly,
      id: decisive(),
      authId: decisive(),
      email: decisive(),
      containerRegistryCreds: holding('ContainerRegistryAuth', call(['GET /v2/registries'])),
      currentSpendPerHr: decisive(),
      machineQuota: hostOnly,
      referralEarned: decisive(),
      signedTermsOfService: decisive(),
      spendLimit: decisive(),
      stripeSavedPaymentId: decisive(),
      stripeSavedPaymentLast4: decisive(),
      templateEarned: decisive(),
      multiFactorEnabled: decisive(),
      machineEarnings: hostOnly,
      machineEarningsCustomRange: hostOnly,
      networkStorageEarnings: hostOnly,
      underBalance: decisive(),
      minBalance: decisive(),
      stripeAutoReloadAmount: decisive(),
      stripeAutoPaymentThreshold: decisive(),
      spendDetails: decisive(),
      maxServerlessConcurrency: decisive(),
      clientLifetimeSpend: decisive(),
      referralId: decisive(),
      datacenters: hostOnly,
      githubAccountInfo: informational('REST v2 has no GitHub link route (profile information)'),
      isAutoPayEnabled: decisive(),
      enableBackupPayments: decisive(),
      onboardingInfo: informational('REST v2 has no onboarding route (what the console asked at sign-up)'),
      affiliateKey: decisive(),
      hasActivated: decisive(),
      canRefer: decisive(),
      referralUsageId: decisive(),
      activeMigrations: decisive(),
      userPreferences: decisive(),
      clientBalance: decisive(),
      hostBalance: hostOnly,
      hostStripeLinked: hostOnly,
      stripeAccountId: decisive(),
      stripeReloadHistory: decisive(),
      payoutHistory: hostOnly,
      dailyCharges: decisive(),
      referral: decisive(),
      // Public keys, one a line (what GraphQL stores); null when the account has none.
      pubKey: call(['GET /v2/account/ssh-keys']),
      information: informational('REST v2 has no profile route (name, address, company)'),
      notifyPodsStale: informational(NOTIFICATIONS),
      notifyPodsGeneral: informational(NOTIFICATIONS),
      notifyLowBalance: informational(NOTIFICATIONS),
      creditAlertThreshold: informational(NOTIFICATIONS),
      notifyOther: informational(NOTIFICATIONS),
      podTemplates: holding('PodTemplate', call(['GET /v2/templates'])),
      creditCodes: decisive(),
      endpoint: holding('Endpoint', call(['GET /v2/serverless/{id}'])),
      endpoints: holding('Endpoint', call(['GET /v2/serverless'])),
      networkVolumes: holding('NetworkVolume', call(['GET /v2/network-volumes'])),
      teams: decisive(),
      ownedTeams: decisive(),
      team: decisive(),
      teamMembership: decisive(),
      teamScopes: decisive(),
      isTeam: decisive(),
      savingsPlans: decisive(),
      savingsPlan: decisive(),
      serverlessDiscount: decisive(),
      billing: decisive(),
      csrRole: decisive(),
      // Names and dates only: REST v2 never returns a secret's value.
      secrets: holding('Secret', call(['GET /v2/account/secrets'])),
      impersonations: decisive(),
      activeImpersonation: decisive(),
      nodeGroups: hostOnly,
      // Without an id argument in the schema there is no cluster to read (myself { clusters } lists them).
      cluster: decisive(),
      clusters: holding('Cluster', call(['GET /v2/clusters'])),
      apiKeys: decisive(),
      sharedApiKeys: decisive(),
      paymentMethods: decisive(),
      paymentMethodsByPriority: decisive(),
      defaultPaymentMethod: decisive(),
      reservations: decisive(),
      globalStoreBuckets: decisive(),
      flashApps: decisive(),
    },
  },
  Secret: {
    rest: 'Secret',
    scope: 'read',
    fields: {
      id: path('id'),
      name: path('name'),
      createdAt: path('createdAt'),
      updatedAt: informational("REST v2 dates only the value's last change (lastUpdatedAt)"),
      description: path('description'),
      lastRetrievedAt: informational('REST v2 does not say when a secret was last read'),
      lastUpdatedAt: path('valueLastUpdatedAt'),
    },
  },
};
