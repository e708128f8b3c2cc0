package httpapi

import (
	"net/http"
	"time"
)

// Timeouts of the process that serves the API on a socket (the local stack and
// the AWS-emulating gateway; on AWS, API Gateway holds the connections). A
// public server must not let slow or idle clients hold it: a connection that
// has not sent its headers in ReadHeaderTimeout is closed (slowloris), a whole
// request must arrive within ReadTimeout, sized for the largest upload (10 MiB
// plus form overhead) on a slow uplink of about 300 kbit/s, and an idle
// keep-alive connection is closed after IdleTimeout.
const (
	ReadHeaderTimeout = 10 * time.Second
	ReadTimeout       = 5 * time.Minute
	WriteTimeout      = 5 * time.Minute
	IdleTimeout       = 2 * time.Minute
	MaxHeaderBytes    = 64 << 10
)

// NewHTTPServer is the http.Server every listening process uses for h.
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
	}
}
