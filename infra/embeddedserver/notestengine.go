//go:build !testengine

package main

import (
	"github.com/callscribe/callscribe/shared/engines"
	"github.com/callscribe/callscribe/shared/stack/config"
)

// addTestEngine adds nothing outside test builds (see testengine.go).
func addTestEngine(engines.Table[config.Config]) {}
