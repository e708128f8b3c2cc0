//go:build cgo

package sqlite

import (
	"errors"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// isBusy reports whether err is SQLite's SQLITE_BUSY (any extended code).
func isBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrBusy
}

// isUniqueViolation reports whether err is a PRIMARY KEY or UNIQUE constraint failure.
func isUniqueViolation(err error) bool {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return false
	}
	return se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey || se.ExtendedCode == sqlite3.ErrConstraintUnique
}
