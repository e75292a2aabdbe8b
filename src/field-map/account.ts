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
const ACCOUNT_PAGE =
  'RunPod documents "Get your account" (id, the team owner\'s for a team key; email, which may be null) in REST v2 on its pages without a path, so it cannot be called yet';
const BALANCE_PAGE = 'RunPod documents "Get the account balance" (balanceAmount) in REST v2 on its pages without a path, so it cannot be called yet';
const LIMITS_PAGE =
  'RunPod documents "Get account limits" in REST v2 on its pages without a path, and its spendRate (the hourly cap checked when a pod or worker starts, the meaning of spendLimit) is an object whose fields the page does not list';

const consoleOnly = (what: string) => decisive(`REST v2 has no ${what} route`);
/** The e-mails the console sends: settings for a person, read by no automation over the API. */
const NOTIFICATIONS = 'REST v2 has no notification settings route (which e-mails the console sends)';
const hostOnly = decisive('host (machine owner) data: REST v2 serves renters only');
const notMapped = (route: string) => decisive(`REST v2's ${route} has another shape, which this map does not translate yet`);

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
      backgroundPods: decisive('REST v2 has no background pods'),
      podsConnection: decisive('REST v2 pages pods by cursor (GET /v2/pods), not as a GraphQL connection'),
      machines: hostOnly,
      hiddenMachines: hostOnly,
      machinesSummary: hostOnly,
      id: decisive(ACCOUNT_PAGE),
      authId: consoleOnly('sign-in identity'),
      email: decisive(ACCOUNT_PAGE),
      containerRegistryCreds: holding('ContainerRegistryAuth', call(['GET /v2/registries'])),
      currentSpendPerHr: decisive(
        "REST v2 has no spend figure: the sum of running pods' cost would leave out serverless workers and storage, so it is not estimated (sum pods { costPerHr } for the pods' part)",
      ),
      machineQuota: hostOnly,
      referralEarned: consoleOnly('referral'),
      signedTermsOfService: consoleOnly('terms-of-service'),
      spendLimit: decisive(LIMITS_PAGE),
      stripeSavedPaymentId: consoleOnly('payment-method'),
      stripeSavedPaymentLast4: consoleOnly('payment-method'),
      templateEarned: consoleOnly('template earnings'),
      multiFactorEnabled: consoleOnly('sign-in security'),
      machineEarnings: hostOnly,
      machineEarningsCustomRange: hostOnly,
      networkStorageEarnings: hostOnly,
      underBalance: decisive(BALANCE_PAGE),
      minBalance: consoleOnly('minimum-balance'),
      stripeAutoReloadAmount: consoleOnly('auto-pay'),
      stripeAutoPaymentThreshold: consoleOnly('auto-pay'),
      spendDetails: notMapped('billing history (GET /v2/billing)'),
      maxServerlessConcurrency: decisive(LIMITS_PAGE),
      clientLifetimeSpend: notMapped('billing history (GET /v2/billing)'),
      referralId: consoleOnly('referral'),
      datacenters: hostOnly,
      githubAccountInfo: informational('REST v2 has no GitHub link route (profile information)'),
      isAutoPayEnabled: consoleOnly('auto-pay'),
      enableBackupPayments: consoleOnly('payment-method'),
      onboardingInfo: informational('REST v2 has no onboarding route (what the console asked at sign-up)'),
      affiliateKey: consoleOnly('referral'),
      hasActivated: consoleOnly('onboarding'),
      canRefer: consoleOnly('referral'),
      referralUsageId: consoleOnly('referral'),
      activeMigrations: decisive('REST v2 has no pod migrations'),
      userPreferences: consoleOnly('console preferences'),
      clientBalance: decisive(BALANCE_PAGE),
      hostBalance: hostOnly,
      hostStripeLinked: hostOnly,
      stripeAccountId: consoleOnly('payment-method'),
      stripeReloadHistory: consoleOnly('payment history'),
      payoutHistory: hostOnly,
      dailyCharges: notMapped('billing history (GET /v2/billing)'),
      referral: consoleOnly('referral'),
      // Public keys, one a line (what GraphQL stores); null when the account has none.
      pubKey: call(['GET /v2/account/ssh-keys']),
      information: informational('REST v2 has no profile route (name, address, company)'),
      notifyPodsStale: informational(NOTIFICATIONS),
      notifyPodsGeneral: informational(NOTIFICATIONS),
      notifyLowBalance: informational(NOTIFICATIONS),
      creditAlertThreshold: informational(NOTIFICATIONS),
      notifyOther: informational(NOTIFICATIONS),
      podTemplates: holding('PodTemplate', call(['GET /v2/templates'])),
      creditCodes: consoleOnly('credit code'),
      endpoint: holding('Endpoint', call(['GET /v2/serverless/{id}'])),
      endpoints: holding('Endpoint', call(['GET /v2/serverless'])),
      networkVolumes: holding('NetworkVolume', call(['GET /v2/network-volumes'])),
      teams: consoleOnly('team'),
      ownedTeams: consoleOnly('team'),
      team: consoleOnly('team'),
      teamMembership: consoleOnly('team'),
      teamScopes: consoleOnly('team'),
      isTeam: consoleOnly('team'),
      savingsPlans: consoleOnly('savings-plan'),
      savingsPlan: consoleOnly('savings-plan'),
      serverlessDiscount: consoleOnly('discount'),
      billing: notMapped('billing history (GET /v2/billing)'),
      csrRole: consoleOnly('support-role'),
      // Names and dates only: REST v2 never returns a secret's value.
      secrets: holding('Secret', call(['GET /v2/account/secrets'])),
      impersonations: consoleOnly('impersonation'),
      activeImpersonation: consoleOnly('impersonation'),
      nodeGroups: hostOnly,
      // Without an id argument in the schema there is no cluster to read (myself { clusters } lists them).
      cluster: notMapped('cluster (GET /v2/clusters/{id}), which needs an id this field does not take'),
      clusters: holding('Cluster', call(['GET /v2/clusters'])),
      apiKeys: consoleOnly('API-key'),
      sharedApiKeys: consoleOnly('API-key'),
      paymentMethods: consoleOnly('payment-method'),
      paymentMethodsByPriority: consoleOnly('payment-method'),
      defaultPaymentMethod: consoleOnly('payment-method'),
      reservations: consoleOnly('reservation'),
      globalStoreBuckets: decisive("REST v2's contract has no global volumes (RunPod's pages document them, in beta, without a path)"),
      flashApps: decisive('REST v2 has no Flash apps'),
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
