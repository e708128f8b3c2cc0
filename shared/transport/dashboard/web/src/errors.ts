import { ApiError } from "./api/error";
import { bytes } from "./format";

/** A readable sentence for an error of the service, with what it needs; maxAudioBytes is null until the limits are read. */
export function describe(e: unknown, maxAudioBytes: number | null): string {
  if (!(e instanceof ApiError)) return "Something went wrong: " + String(e);
  const d = e.details ?? {};
  switch (e.code) {
    case "UNSUPPORTED_AUDIO_FORMAT":
      return "This file is not MP3 or WAV audio. Upload an MP3 or WAV recording.";
    case "FILE_TOO_LARGE":
      return maxAudioBytes === null ? "The file is larger than this service's upload limit." : `The file is larger than the ${bytes(maxAudioBytes)} limit.`;
    case "AUDIO_DURATION_UNKNOWN":
      return "The length of this recording cannot be read; the file may be damaged.";
    case "QUOTA_EXCEEDED":
      return `This upload (${d["file_minutes"]} min) would exceed your monthly quota: ${d["used_minutes"]} of ${d["limit_minutes"]} minutes used.`;
    case "NETWORK_ERROR":
      return e.message;
  }
  return e.message + (e.requestId ? ` (request ${e.requestId})` : "");
}
