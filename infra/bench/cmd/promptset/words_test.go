package main

import (
	"strings"
	"testing"
)

func TestPromptWords(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"Please press 1 to mute or unmute yourself, 2 to lock.", "please press one to mute or unmute yourself two to lock"},
		{"Please enter one or more keywords separated by * and then press the pound key.", "please enter one or more keywords separated by star and then press the pound key"},
		{"Call-Forward on No Answer.", "call forward on no answer"},
		{"3 to mute or umute all users", "three to mute or unmute all users"},
		{"Press 0 for greetings, or 16 for 40 more.", "press zero for greetings or sixteen for forty more"},
		{"3D audio enabled", "three d audio enabled"},
		{"Thank you for calling your party's line.", "thank you for calling your party's line"},
		{"... callers waiting to speak with a representative.", "callers waiting to speak with a representative"},
		{"Please leave your message after the tone. (simple tone sound plays)", "please leave your message after the tone"},
		{"IAX (note: does not say \"2\")", "iax"},
		{"[ascending tones]", ""},
		{"H.323", ""},
		{"Enter 123 now", ""},
	} {
		got := strings.Join(promptWords(tc.text), " ")
		if got != tc.want {
			t.Errorf("promptWords(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestSpellNumber(t *testing.T) {
	for run, want := range map[string]string{"0": "zero", "7": "seven", "13": "thirteen", "20": "twenty", "42": "forty two", "99": "ninety nine", "05": "five"} {
		if got, ok := spellNumber(run); !ok || got != want {
			t.Errorf("spellNumber(%q) = %q, %v; want %q", run, got, ok, want)
		}
	}
	if _, ok := spellNumber("100"); ok {
		t.Error("spellNumber(100) ok; a run of three digits has no one reading")
	}
}
