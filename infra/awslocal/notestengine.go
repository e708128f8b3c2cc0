//go:build !testengine

package main

import (
	"github.com/callscribe/callscribe/shared/awsstack"
	"github.com/callscribe/callscribe/shared/engines"
)

// addTestEngine adds nothing outside test builds (see testengine.go).
func addTestEngine(engines.Table[*awsstack.AWS]) {}
