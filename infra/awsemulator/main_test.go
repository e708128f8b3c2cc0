package main

import (
	"strings"
	"testing"
)

// RESOURCE_PREFIX must make a valid table, queue and bucket name; anything
// else stops the emulation at start-up with a message naming the variable.
func TestResourcePrefix(t *testing.T) {
	for _, tc := range []struct {
		value, want string
	}{
		{"", defaultResourcePrefix},
		{"callscribe", "callscribe"},
		{"team-a2", "team-a2"},
		{"x", "x"},
	} {
		if got, err := resourcePrefix(tc.value); err != nil || got != tc.want {
			t.Errorf("resourcePrefix(%q) = %q, %v; want %q", tc.value, got, err, tc.want)
		}
	}
	for _, bad := range []string{"Callscribe", "2team", "-team", "team_a", "team.a", "team a", strings.Repeat("a", 31)} {
		if got, err := resourcePrefix(bad); err == nil || !strings.Contains(err.Error(), "RESOURCE_PREFIX") {
			t.Errorf("resourcePrefix(%q) = %q, %v; want an error naming RESOURCE_PREFIX", bad, got, err)
		}
	}
}
