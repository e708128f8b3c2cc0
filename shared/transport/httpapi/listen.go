package httpapi

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Timeouts of the process that serves the API on a socket (the local stack and
// the AWS-emulating gateway; on AWS, API Gateway holds the connections). A
// public server must not let slow or idle clients hold it: a connection that
// has not sent its headers in ReadHeaderTimeout is closed (slowloris), a whole
// request must arrive within ReadTimeout, sized for the largest upload (10 MiB
// plus form overhead) on a slow uplink of about 300 kbit/s, and an idle
// keep-alive connection is closed after IdleTimeout.
//
// A request line and headers over MaxRequestHeaderBytes are refused with 431
// REQUEST_HEADERS_TOO_LARGE in the error shape. net/http itself reads up to
// MaxHeaderBytes and answers a larger head with its own plain-text 431 and no
// requestId (it offers no hook to shape that answer), so the server reads
// further than the API accepts, and only an absurd head gets the plain one.
const (
	ReadHeaderTimeout     = 10 * time.Second
	ReadTimeout           = 5 * time.Minute
	WriteTimeout          = 5 * time.Minute
	IdleTimeout           = 2 * time.Minute
	MaxRequestHeaderBytes = 64 << 10
	MaxHeaderBytes        = http.DefaultMaxHeaderBytes
)

// NewHTTPServer is the http.Server every listening process uses for h.
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           limitRequestHead(h),
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
	}
}

// limitRequestHead refuses a request whose request line and headers are over
// MaxRequestHeaderBytes, counted as they were sent (name, value, ": " and
// CRLF per header line).
func limitRequestHead(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		size := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 4 + len(r.Host) + len("Host: \r\n")
		for name, values := range r.Header {
			for _, v := range values {
				size += len(name) + len(v) + 4
			}
		}
		if size <= MaxRequestHeaderBytes {
			h.ServeHTTP(w, r)
			return
		}
		requestID := uuid.NewString()
		r = r.WithContext(withRequest(r.Context(), requestID, requestLogger(slog.Default(), requestID)))
		w.Header().Set("X-Request-Id", requestID)
		// The connection is closed: a client sending such heads is not one
		// to keep reading from.
		w.Header().Set("Connection", "close")
		writeError(w, r, callscribe.Errorf(callscribe.CodeRequestHeadersTooLarge,
			"The request line and headers are larger than %d bytes (a long query string counts).", MaxRequestHeaderBytes))
	})
}
