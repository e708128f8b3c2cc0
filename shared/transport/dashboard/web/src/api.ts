// The dashboard talks to the service only through its documented routes: the
// local identity (/dashboard/signup, /dashboard/login), the session routes
// (/dashboard/...), and the spec's usage route. The session token lives in
// sessionStorage (gone when the tab closes) and travels as a bearer header,
// so no cookie is ever sent and no request can be forged from another site.

export type JobStatus = "queued" | "processing" | "succeeded" | "failed";
export type JobType = "transcription" | "summary" | "tags";

export interface Segment {
  text: string;
  time_start: number;
  time_end: number;
  speaker_id: number;
  speaker_alias: string;
}

export interface JobError {
  code: string;
  message: string;
  provider_error?: { code: string; message: string };
}

export interface Job {
  job_id: string;
  type: JobType;
  status: JobStatus;
  source_job_id?: string;
  result?: any;
  error?: JobError;
  metadata?: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  requestId: string;
}

export interface JobSummary {
  job_id: string;
  type: JobType;
  status: JobStatus;
  original_filename: string | null;
  language: string | null;
  audio_seconds: number;
  created_at: string;
  updated_at: string;
}

export interface Limits {
  max_audio_bytes: number;
  direct_upload_max_bytes: number;
  audio_formats: string[];
  max_metadata_bytes: number;
  default_page_size: number;
  max_page_size: number;
}

export interface APIKey {
  key_id: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

/** An error answer of the service, in the spec's error shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> | undefined,
    readonly requestId: string,
  ) {
    super(message);
  }
}

const sessionKey = "callscribe.session";

interface Session {
  token: string;
  expiresAt: string;
}

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

export function signOut(): void {
  sessionStorage.removeItem(sessionKey);
}

/** Called when a session route answers 401: the session expired or was refused. */
let onSessionLost: () => void = () => {};
export function whenSessionLost(f: () => void): void {
  onSessionLost = f;
}

async function parse(resp: Response): Promise<any> {
  const text = await resp.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (resp.ok) return body;
  const e = body?.error ?? {};
  const requestId = body?.requestId ?? resp.headers.get("X-Request-Id") ?? "";
  throw new ApiError(resp.status, e.code ?? "HTTP_" + resp.status, e.message ?? resp.statusText, e.details, requestId);
}

async function request(method: string, path: string, body?: unknown): Promise<any> {
  const headers: Record<string, string> = {};
  const s = session();
  if (s) headers["Authorization"] = "Bearer " + s.token;
  let payload: BodyInit | undefined;
  if (body instanceof FormData) {
    payload = body;
  } else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const resp = await fetch(path, { method, headers, body: payload, credentials: "omit" });
  try {
    return await parse(resp);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401 && s && !path.startsWith("/dashboard/login")) {
      signOut();
      onSessionLost();
    }
    throw e;
  }
}

/** Where people sign in here: the service itself, or a Cognito user pool (AWS). */
export interface Identity {
  kind: "local" | "cognito";
  region?: string;
  client_id?: string;
  endpoint?: string;
}

let identityCache: Identity | null = null;
export async function identity(): Promise<Identity> {
  identityCache ??= (await request("GET", "/dashboard/config")).identity as Identity;
  return identityCache;
}

/** One call to Cognito's user pool API (JSON protocol), as its SDKs make it. */
async function cognito(id: Identity, action: string, body: unknown): Promise<any> {
  const resp = await fetch(id.endpoint!, {
    method: "POST",
    headers: { "Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": "AWSCognitoIdentityProviderService." + action },
    body: JSON.stringify(body),
    credentials: "omit",
  });
  const out = await resp.json().catch(() => ({}));
  if (!resp.ok) {
    const kind = String(out.__type ?? resp.headers.get("X-Amzn-ErrorType") ?? "CognitoError").split("#").pop()!;
    throw new ApiError(resp.status, kind, out.message ?? "Sign-in failed.", undefined, "");
  }
  return out;
}

/** Signs up; true when the account still needs the emailed confirmation code. */
export async function signUp(email: string, password: string): Promise<boolean> {
  const id = await identity();
  if (id.kind !== "cognito") {
    await request("POST", "/dashboard/signup", { email, password });
    return false;
  }
  const r = await cognito(id, "SignUp", { ClientId: id.client_id, Username: email, Password: password, UserAttributes: [{ Name: "email", Value: email }] });
  return !r.UserConfirmed;
}

export async function confirmSignUp(email: string, code: string): Promise<void> {
  const id = await identity();
  await cognito(id, "ConfirmSignUp", { ClientId: id.client_id, Username: email, ConfirmationCode: code });
}

export async function signIn(email: string, password: string): Promise<void> {
  const id = await identity();
  if (id.kind !== "cognito") {
    const r = await request("POST", "/dashboard/login", { email, password });
    sessionStorage.setItem(sessionKey, JSON.stringify({ token: r.token, expiresAt: r.expires_at }));
    return;
  }
  const r = await cognito(id, "InitiateAuth", { AuthFlow: "USER_PASSWORD_AUTH", ClientId: id.client_id, AuthParameters: { USERNAME: email, PASSWORD: password } });
  const auth = r.AuthenticationResult;
  if (!auth?.IdToken) throw new ApiError(401, "SIGN_IN_CHALLENGE", "This account needs a step the dashboard does not offer yet; sign in with the AWS CLI.", undefined, "");
  // API Gateway's JWT authorizer checks the ID token (the account is its sub).
  const expiresAt = new Date(Date.now() + (auth.ExpiresIn ?? 3600) * 1000).toISOString();
  sessionStorage.setItem(sessionKey, JSON.stringify({ token: auth.IdToken, expiresAt }));
}

export const limits = (): Promise<Limits> => request("GET", "/dashboard/limits");
export const usage = (): Promise<{ limit_minutes: number; used_minutes: number; remaining_minutes: number }> =>
  request("GET", "/v1/transcriptions/usage");
export const taxonomy = (): Promise<{ categories: { name: string; values: { value: string; description: string }[] }[] }> =>
  request("GET", "/dashboard/taxonomy");

export interface JobFilter {
  status?: string;
  type?: string;
  language?: string;
  created_after?: string;
}

export function listJobs(filter: JobFilter, cursor: string | null, limit = 20): Promise<{ transcriptions: JobSummary[]; next_cursor: string | null }> {
  const q = new URLSearchParams();
  q.set("limit", String(limit));
  for (const [k, v] of Object.entries(filter)) if (v) q.set(k, v);
  if (cursor) q.set("cursor", cursor);
  return request("GET", "/dashboard/jobs?" + q.toString());
}

export const getJob = (id: string): Promise<Job> => request("GET", "/dashboard/jobs/" + encodeURIComponent(id));
export const deleteJob = (id: string): Promise<void> => request("DELETE", "/dashboard/jobs/" + encodeURIComponent(id));
export const audioLink = (id: string): Promise<{ url: string; expires_at: string }> =>
  request("GET", "/dashboard/jobs/" + encodeURIComponent(id) + "/audio");
export const derive = (kind: "summarize" | "tag", transcriptionJobId: string): Promise<{ job_id: string; type: JobType; status: JobStatus }> =>
  request("POST", "/dashboard/" + kind, { transcription_job_id: transcriptionJobId });

export const listKeys = (): Promise<{ api_keys: APIKey[] }> => request("GET", "/dashboard/api-keys");
export const createKey = (): Promise<{ key_id: string; api_key: string; created_at: string }> => request("POST", "/dashboard/api-keys");
export const revokeKey = (id: string): Promise<void> => request("DELETE", "/dashboard/api-keys/" + encodeURIComponent(id));

/** Downloads an export of a transcription as a file the browser saves. */
export async function exportFile(id: string, format: string): Promise<Blob> {
  const s = session();
  const resp = await fetch("/dashboard/jobs/" + encodeURIComponent(id) + "/export?format=" + format, {
    headers: s ? { Authorization: "Bearer " + s.token } : {},
    credentials: "omit",
  });
  if (!resp.ok) await parse(resp);
  return resp.blob();
}

/** XMLHttpRequest, because fetch cannot report upload progress. */
function sendWithProgress(method: string, url: string, form: FormData, auth: boolean, progress: (fraction: number) => void): Promise<any> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    const s = session();
    if (auth && s) xhr.setRequestHeader("Authorization", "Bearer " + s.token);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) progress(e.loaded / e.total);
    };
    xhr.onerror = () => reject(new ApiError(0, "NETWORK_ERROR", "The upload could not reach the service.", undefined, ""));
    xhr.onload = () => {
      const headers = new Headers();
      const rid = xhr.getResponseHeader("X-Request-Id");
      if (rid) headers.set("X-Request-Id", rid);
      parse(new Response(xhr.status === 204 ? null : xhr.responseText, { status: xhr.status, statusText: xhr.statusText, headers })).then(resolve, (e) => {
        if (e instanceof ApiError && e.status === 401 && auth) {
          signOut();
          onSessionLost();
        }
        reject(e);
      });
    };
    xhr.send(form);
  });
}

export interface UploadRequest {
  file: File;
  language?: string;
  metadata?: string;
  /** Words or phrases to favour (the keyterms field); the service checks them. */
  keyterms?: string[];
}

/**
 * Uploads a call. Files larger than one request can carry in this deployment
 * (limits.direct_upload_max_bytes) go through the two-step upload: a presigned
 * POST straight to storage, then the job with upload_id.
 */
export async function uploadCall(req: UploadRequest, lim: Limits, progress: (fraction: number) => void): Promise<{ job_id: string }> {
  const fields = new FormData();
  if (req.language) fields.set("language", req.language);
  if (req.metadata) fields.set("metadata", req.metadata);
  if (req.keyterms && req.keyterms.length > 0) fields.set("keyterms", JSON.stringify(req.keyterms));
  if (req.file.size <= lim.direct_upload_max_bytes) {
    fields.set("file", req.file, req.file.name);
    return sendWithProgress("POST", "/dashboard/jobs", fields, true, progress);
  }
  const staged = await request("POST", "/dashboard/uploads");
  const form = new FormData();
  for (const [k, v] of Object.entries(staged.fields as Record<string, string>)) form.set(k, v);
  form.set("file", req.file, req.file.name);
  await sendWithProgress("POST", staged.url, form, false, progress);
  fields.set("upload_id", staged.upload_id);
  fields.set("filename", req.file.name); // the job keeps the file's name
  return request("POST", "/dashboard/jobs", fields);
}
