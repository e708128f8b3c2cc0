import * as api from "./api/client";
import { ApiError } from "./api/error";
import type { Job } from "./api/types";
import { onLeave } from "./state";

const firstDelayMs = 1000;
const maxDelayMs = 15000;

/** The wait before the next poll: half as long again as the last, at most 15 s. */
export function nextDelay(ms: number): number {
  return Math.min(ms * 1.5, maxDelayMs);
}

/** Whether a job has reached an end (nothing more to poll for). */
export function finished(status: string): boolean {
  return status === "succeeded" || status === "failed";
}

/** Polls a job until it finishes, or the page is left, or it is gone (401, 404). */
export function pollJob(id: string, onUpdate: (j: Job) => void): void {
  let delay = firstDelayMs;
  let stopped = false;
  onLeave(() => (stopped = true));
  const tick = async () => {
    if (stopped) return;
    try {
      const j = await api.getJob(id);
      onUpdate(j);
      if (finished(j.status)) return;
    } catch (e) {
      if (e instanceof ApiError && (e.status === 401 || e.status === 404)) return;
    }
    delay = nextDelay(delay);
    setTimeout(tick, delay);
  };
  setTimeout(tick, delay);
}
