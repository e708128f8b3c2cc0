//go:build race

package main

// raceEnabled: the tests run with -race, so the binary they build has it too.
const raceEnabled = true
