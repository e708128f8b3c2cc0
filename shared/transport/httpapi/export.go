package httpapi

import (
	"bytes"
	"net/http"
	"strconv"

	"github.com/callscribe/callscribe/shared/transport/transcriptexport"
)

// exportJob serves a finished transcription as a file (txt, srt, vtt, json).
// Errors keep the spec's JSON shape; a file carries its requestId in the
// X-Request-Id header only, as a file has no place for it.
func (s *Server) exportJob(w http.ResponseWriter, r *http.Request, accountID string) {
	format, err := transcriptexport.ParseFormat(r.URL.Query().Get("format"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	jobID := r.PathValue("job_id")
	result, err := s.deps.Service.Transcript(r.Context(), accountID, jobID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	// Rendered in memory first, so a failure is still an error response.
	var body bytes.Buffer
	if err := transcriptexport.Write(&body, format, result); err != nil {
		writeError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", format.ContentType())
	h.Set("Content-Disposition", `attachment; filename="`+jobID+"."+format.Extension()+`"`)
	h.Set("Content-Length", strconv.Itoa(body.Len()))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(body.Bytes()); err != nil {
		logger(r.Context()).Warn("writing the export failed", "err", err)
	}
}
