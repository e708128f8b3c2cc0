package httpapi

import (
	"net/http"
	"strconv"

	"github.com/callscribe/callscribe/shared/transport/openapi"
)

// openAPIDocument serves the embedded OpenAPI document as it is: the bytes
// the black-box suite validates every exchange against. It needs no
// credentials (see publicPaths); the requestId is in X-Request-Id only, as
// the document has no place for it.
func (s *Server) openAPIDocument(w http.ResponseWriter, r *http.Request) {
	doc := openapi.Document()
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(doc)))
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(doc); err != nil {
		logger(r.Context()).Warn("writing the OpenAPI document failed", "err", err)
	}
}
