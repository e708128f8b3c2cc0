// The wire types the page uses, taken from the OpenAPI document
// (schema.gen.ts, made by `npm run gen:types`). Every use of the generated
// names goes through this file, so a change in the document's shape is fixed
// here and nowhere else.
import type { components, operations } from "./schema.gen";

type Schemas = components["schemas"];
type JSONOf<Op extends keyof operations, Status extends number> = operations[Op]["responses"] extends Record<Status, { content: { "application/json": infer B } }> ? B : never;

export type Job = Schemas["Job"];
export type JobSummary = Schemas["JobSummary"];
export type JobList = Schemas["JobList"];
export type JobStatus = Schemas["JobStatus"];
export type JobType = Schemas["JobType"];
export type JobError = Schemas["JobError"];
export type Segment = Schemas["Segment"];
export type Word = Schemas["Word"];
export type SegmentSentiment = Schemas["SegmentSentiment"];
export type TranscriptionResult = Schemas["TranscriptionResult"];
export type CallMetrics = Schemas["CallMetrics"];
export type SpeakerMetrics = Schemas["SpeakerMetrics"];
export type CallSentiment = Schemas["CallSentiment"];
export type SpeakerSentiment = Schemas["SpeakerSentiment"];
export type QuarterSentiment = Schemas["QuarterSentiment"];
export type SummaryResult = Schemas["SummaryResult"];
export type TagsResult = Schemas["TagsResult"];
export type Usage = Schemas["Usage"];
export type QuotaDetails = Schemas["QuotaDetails"];
export type ErrorBody = Schemas["Error"];
export type TagRequest = Schemas["TagRequest"];

export type Limits = JSONOf<"dashboardLimits", 200>;
export type DailyUsage = JSONOf<"dashboardDailyUsage", 200>;
export type Identity = JSONOf<"dashboardConfig", 200>["identity"];
export type LoginResult = JSONOf<"login", 200>;
export type APIKey = JSONOf<"listAPIKeys", 200>["api_keys"][number];
export type APIKeyList = JSONOf<"listAPIKeys", 200>;
export type CreatedAPIKey = JSONOf<"createAPIKey", 201>;
export type AudioLink = JSONOf<"dashboardJobAudio", 200>;
export type DerivedAccepted = JSONOf<"dashboardSummarize", 202>;
export type TranscriptionAccepted = JSONOf<"dashboardCreateJob", 202>;
export type UploadCreated = JSONOf<"dashboardCreateUpload", 201>;
export type Taxonomy = JSONOf<"dashboardTaxonomy", 200>;
export type SigningSecret = JSONOf<"getSigningSecret", 200>;
export type DeliveryList = JSONOf<"dashboardListDeliveries", 200>;
export type DeliveryAttempt = Schemas["DeliveryAttempt"];

// The document gives a job's result one shape per job type (if/then), which
// the generator cannot express; these read a job's optional parts, so the
// pages never touch a field whose presence depends on the job's type or status.

/** What went wrong with a failed job, else null. */
export function errorOf(j: Job): JobError | null {
  return j.status === "failed" && j.error ? j.error : null;
}

/** The transcription a summary or tags job was made from, when it recorded one. */
export function sourceOf(j: Job): string | null {
  return j.type !== "transcription" && j.source_job_id ? j.source_job_id : null;
}

/** The metadata object a transcription was uploaded with, else null. */
export function metadataOf(j: Job): Record<string, unknown> | null {
  return j.type === "transcription" && j.metadata ? (j.metadata as Record<string, unknown>) : null;
}

/** The transcript of a succeeded transcription; empty for anything else. */
export function transcriptOf(j: Job): Segment[] {
  if (j.type !== "transcription" || j.status !== "succeeded" || !j.result) return [];
  return (j.result as unknown as TranscriptionResult).transcript ?? [];
}

/** The whole result of a succeeded transcription (transcript, metrics, sentiment), else null. */
export function transcriptionOf(j: Job): TranscriptionResult | null {
  if (j.type !== "transcription" || j.status !== "succeeded" || !j.result) return null;
  return j.result as unknown as TranscriptionResult;
}

/** The result of a succeeded summary job, else null. */
export function summaryOf(j: Job): SummaryResult | null {
  return j.type === "summary" && j.status === "succeeded" && j.result ? (j.result as unknown as SummaryResult) : null;
}

/** The result of a succeeded tags job, else null. */
export function tagsOf(j: Job): TagsResult | null {
  return j.type === "tags" && j.status === "succeeded" && j.result ? (j.result as unknown as TagsResult) : null;
}
