export const REDACTED = '[REDACTED]';

const SECRET_QUERY_PARAMS = ['api_key', 'apikey', 'token', 'access_token'];

/** A URL string with every credential-like query parameter and userinfo replaced. */
export function redactUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    return String(url).replace(/(api_key|apikey|token|access_token)=[^&#\s]*/gi, `$1=${REDACTED}`);
  }
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_QUERY_PARAMS.includes(name.toLowerCase())) parsed.searchParams.set(name, REDACTED);
  }
  if (parsed.username) parsed.username = REDACTED;
  if (parsed.password) parsed.password = REDACTED;
  return parsed.toString().replaceAll(encodeURIComponent(REDACTED), REDACTED);
}

/** `text` with every occurrence of `secret` (raw and URL-encoded) replaced. */
export function scrubSecret(text: string, secret: string | undefined): string {
  if (!secret) return text;
  let out = text.replaceAll(secret, REDACTED);
  const encoded = encodeURIComponent(secret);
  if (encoded !== secret) out = out.replaceAll(encoded, REDACTED);
  return out;
}
