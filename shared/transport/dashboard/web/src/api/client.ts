// The dashboard talks to the service only through its documented routes: the
// local identity (/dashboard/signup, /dashboard/login), the session routes
// (/dashboard/...), and the spec's usage route. Wire types come from the
// OpenAPI document (./types).
import { ApiError } from "./error";
import { jobsQuery, JobFilter } from "./query";
import { clearSession, saveSession, session } from "./session";
import type {
  APIKeyList,
  AudioLink,
  CreatedAPIKey,
  DailyUsage,
  DeliveryList,
  DerivedAccepted,
  Identity,
  Job,
  JobList,
  JobSummary,
  Limits,
  LoginResult,
  SigningSecret,
  TagRequest,
  Taxonomy,
  TranscriptionAccepted,
  UploadCreated,
  Usage,
} from "./types";

export { ApiError } from "./error";
export type { JobFilter } from "./query";

/** Called when a session route answers 401: the session expired or was refused. */
let onSessionLost: () => void = () => {};
export function whenSessionLost(f: () => void): void {
  onSessionLost = f;
}

function sessionLost(): void {
  // A page's requests fail together; the first 401 signs out and navigates.
  // A later one acting again would render the sign-in page a second time (the
  // first navigation's hashchange still pending), and that page would find
  // the expiry message already taken.
  if (!session()) return;
  clearSession();
  onSessionLost();
}

async function parse<T>(resp: Response): Promise<T> {
  const text = await resp.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (resp.ok) return body as T;
  const e = body?.error ?? {};
  const requestId = body?.requestId ?? resp.headers.get("X-Request-Id") ?? "";
  throw new ApiError(resp.status, e.code ?? "HTTP_" + resp.status, e.message ?? resp.statusText, e.details, requestId);
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
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
    return await parse<T>(resp);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401 && s && !path.startsWith("/dashboard/login")) sessionLost();
    throw e;
  }
}

let identityCache: Identity | null = null;
/** Where people sign in here: the service itself, or a Cognito user pool (AWS). */
export async function identity(): Promise<Identity> {
  identityCache ??= (await request<{ identity: Identity }>("GET", "/dashboard/config")).identity;
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
    const r = await request<LoginResult>("POST", "/dashboard/login", { email, password });
    saveSession({ token: r.token, expiresAt: r.expires_at });
    return;
  }
  const r = await cognito(id, "InitiateAuth", { AuthFlow: "USER_PASSWORD_AUTH", ClientId: id.client_id, AuthParameters: { USERNAME: email, PASSWORD: password } });
  const auth = r.AuthenticationResult;
  if (!auth?.IdToken) throw new ApiError(401, "SIGN_IN_CHALLENGE", "This account needs a step the dashboard does not offer yet; sign in with the AWS CLI.", undefined, "");
  // API Gateway's JWT authorizer checks the ID token (the account is its sub).
  const expiresAt = new Date(Date.now() + (auth.ExpiresIn ?? 3600) * 1000).toISOString();
  saveSession({ token: auth.IdToken, expiresAt });
}

export const limits = (): Promise<Limits> => request("GET", "/dashboard/limits");
export const usage = (): Promise<Usage> => request("GET", "/v1/transcriptions/usage");
export const dailyUsage = (): Promise<DailyUsage> => request("GET", "/dashboard/usage/daily");
export const taxonomy = (): Promise<Taxonomy> => request("GET", "/dashboard/taxonomy");

export const listJobs = (filter: JobFilter, cursor: string | null, limit: number): Promise<JobList> =>
  request("GET", "/dashboard/jobs?" + jobsQuery(filter, cursor, limit));

/** The list entry of one job (its file name and length, which a job read does not carry); null when the list has none. */
export async function jobEntry(id: string): Promise<JobSummary | null> {
  const page = await listJobs({ job_id: id }, null, 1);
  return page.transcriptions.find((j) => j.job_id === id) ?? null;
}

/**
 * One page of the jobs made from a call. The list route filters by the
 * source_job_id query parameter (the job a summary or tags job was made
 * from), so summaries and tags made from the CLI or another browser show too.
 */
export const listJobsFrom = (callId: string, cursor: string | null, limit: number): Promise<JobList> =>
  request("GET", "/dashboard/jobs?" + jobsQuery({}, cursor, limit) + "&source_job_id=" + encodeURIComponent(callId));

export const getJob = (id: string): Promise<Job> => request("GET", "/dashboard/jobs/" + encodeURIComponent(id));
export const deleteJob = (id: string): Promise<void> => request("DELETE", "/dashboard/jobs/" + encodeURIComponent(id));
export const audioLink = (id: string): Promise<AudioLink> => request("GET", "/dashboard/jobs/" + encodeURIComponent(id) + "/audio");
export const summarize = (transcriptionJobId: string): Promise<DerivedAccepted> => request("POST", "/dashboard/summarize", { transcription_job_id: transcriptionJobId });

/** Tags a call; with a callback URL the service also POSTs the result there when the job finishes. */
export function tag(transcriptionJobId: string, callbackUrl?: string): Promise<DerivedAccepted> {
  const body: TagRequest = { transcription_job_id: transcriptionJobId };
  if (callbackUrl) body.callback_url = callbackUrl;
  return request("POST", "/dashboard/tag", body);
}

export const listKeys = (): Promise<APIKeyList> => request("GET", "/dashboard/api-keys");
export const createKey = (): Promise<CreatedAPIKey> => request("POST", "/dashboard/api-keys");
export const revokeKey = (id: string): Promise<void> => request("DELETE", "/dashboard/api-keys/" + encodeURIComponent(id));
export const signingSecret = (): Promise<SigningSecret> => request("GET", "/dashboard/signing-secret");
export const rotateSigningSecret = (): Promise<SigningSecret> => request("POST", "/dashboard/signing-secret/rotate");
/** The recorded tagDelivered attempts of a tags job, newest first. */
export const deliveries = (id: string): Promise<DeliveryList> => request("GET", "/dashboard/jobs/" + encodeURIComponent(id) + "/deliveries");

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
function sendWithProgress<T>(method: string, url: string, form: FormData, auth: boolean, progress: (fraction: number) => void): Promise<T> {
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
      parse<T>(new Response(xhr.status === 204 ? null : xhr.responseText, { status: xhr.status, statusText: xhr.statusText, headers })).then(resolve, (e) => {
        if (e instanceof ApiError && e.status === 401 && auth) sessionLost();
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
  /** Sent as redact_pii when set; absent leaves the deployment's default (REDACT_PII). */
  redact_pii?: boolean;
}

/**
 * Uploads a call. Files larger than one request can carry in this deployment
 * (limits.direct_upload_max_bytes) go through the two-step upload: a presigned
 * POST straight to storage, then the job with upload_id.
 */
export async function uploadCall(req: UploadRequest, lim: Limits, progress: (fraction: number) => void): Promise<TranscriptionAccepted> {
  const fields = new FormData();
  if (req.language) fields.set("language", req.language);
  if (req.metadata) fields.set("metadata", req.metadata);
  if (req.keyterms && req.keyterms.length > 0) fields.set("keyterms", JSON.stringify(req.keyterms));
  if (req.redact_pii !== undefined) fields.set("redact_pii", String(req.redact_pii));
  if (req.file.size <= lim.direct_upload_max_bytes) {
    fields.set("file", req.file, req.file.name);
    return sendWithProgress("POST", "/dashboard/jobs", fields, true, progress);
  }
  const staged = await request<UploadCreated>("POST", "/dashboard/uploads");
  const form = new FormData();
  for (const [k, v] of Object.entries(staged.fields)) form.set(k, v);
  form.set("file", req.file, req.file.name);
  await sendWithProgress("POST", staged.url, form, false, progress);
  fields.set("upload_id", staged.upload_id);
  fields.set("filename", req.file.name); // the job keeps the file's name
  return request("POST", "/dashboard/jobs", fields);
}
