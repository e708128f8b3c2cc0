// The dashboard session: a bearer token kept in sessionStorage (gone when the
// tab closes) and sent as a header, so no cookie is ever sent and no request
// can be forged from another site.

const sessionKey = "callscribe.session";

export interface Session {
  token: string;
  expiresAt: string;
}

/** The stored session, or null when there is none or it has expired. */
export function session(): Session | null {
  const raw = sessionStorage.getItem(sessionKey);
  if (!raw) return null;
  try {
    const s = JSON.parse(raw) as Session;
    if (!s.token || Date.parse(s.expiresAt) <= Date.now()) return null;
    return s;
  } catch {
    return null;
  }
}

export function saveSession(s: Session): void {
  sessionStorage.setItem(sessionKey, JSON.stringify(s));
}

export function clearSession(): void {
  sessionStorage.removeItem(sessionKey);
}
