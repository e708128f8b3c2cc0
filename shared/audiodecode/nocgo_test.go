//go:build !cgo

package audiodecode

const cgoEnabled = false
