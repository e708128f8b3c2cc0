//go:build !testengine

package main

import (
	"github.com/callscribe/callscribe/shared/app"
	"github.com/callscribe/callscribe/shared/engines"
)

// addTestEngine adds nothing outside test builds (see testengine.go).
func addTestEngine(engines.Table[app.Config]) {}
