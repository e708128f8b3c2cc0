// What the page does with the deployment's limits (GET /dashboard/limits).
// Pure functions, unit-tested in test/limits.test.ts.
import type { Limits } from "./api/types";
import { bytes } from "./format";

const stereoNote = "stereo calls are split into Agent (left) and User (right).";

/** The hint under the file field: the formats and, once the limits are read, the size limit. */
export function uploadHint(lim: Limits | null): string {
  return lim ? `MP3 or WAV, up to ${bytes(lim.max_audio_bytes)}; ${stereoNote}` : `MP3 or WAV; ${stereoNote}`;
}

/** Why a file cannot be sent, checked before sending it (the service checks again); null when it can. */
export function refuseUpload(size: number, metadataBytes: number, lim: Limits): string | null {
  if (size > lim.max_audio_bytes) return `This file is ${bytes(size)}; the limit is ${bytes(lim.max_audio_bytes)}.`;
  if (metadataBytes > lim.max_metadata_bytes) return `The metadata is ${bytes(metadataBytes)}; the limit is ${bytes(lim.max_metadata_bytes)}.`;
  return null;
}

/** Jobs the calls list asks for a page: its own choice of 20, within what the service allows. */
export function listPageSize(lim: Limits | null): number {
  const wanted = 20;
  return lim ? Math.max(1, Math.min(wanted, lim.max_page_size)) : wanted;
}
