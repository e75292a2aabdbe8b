// The board page's own operation, as an app writes one for a page: the fields it shows and no
// field a read token may not read (the package's MyPods selects Pod.env, which needs write).
export interface PodNamesQuery {
  myself: { pods: Array<{ id: string; name: string; desiredStatus: string } | null> | null } | null;
}

/** A typed document string, as codegen writes one. */
export const PodNamesDocument = Object.assign(new String('query PodNames { myself { pods { id name desiredStatus } } }'), {}) as unknown as {
  toString(): string;
  __apiType?: (variables: Record<string, never>) => PodNamesQuery;
};
