//go:build !cgo

package sqlite

// Without cgo the driver opens nothing (Open fails, saying cgo is required),
// so no SQLite error ever reaches these; they exist so that the module builds
// with CGO_ENABLED=0, as the Lambda functions (which never use this package) do.

func isBusy(error) bool { return false }

func isUniqueViolation(error) bool { return false }
