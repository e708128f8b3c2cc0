//go:build !cgo

package decode

const cgoEnabled = false
