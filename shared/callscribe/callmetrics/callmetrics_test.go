package callmetrics

import (
	"reflect"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// seg builds a segment of n words; speaker 0 is the Agent, 1 the User.
func seg(speaker int, start, end float64, n int) callscribe.Segment {
	alias := callscribe.AliasAgent
	if speaker == 1 {
		alias = callscribe.AliasUser
	}
	return callscribe.Segment{Text: strings.TrimSpace(strings.Repeat("word ", n)), TimeStart: start, TimeEnd: end, SpeakerID: speaker, SpeakerAlias: alias}
}

func agent(talk, share, wpm float64, turns int, monologue float64, interruptions int) callscribe.SpeakerMetrics {
	return callscribe.SpeakerMetrics{SpeakerID: 0, SpeakerAlias: callscribe.AliasAgent, TalkSeconds: talk, TalkShare: share, WordsPerMinute: wpm, Turns: turns, LongestMonologueSeconds: monologue, Interruptions: interruptions}
}

func user(talk, share, wpm float64, turns int, monologue float64, interruptions int) callscribe.SpeakerMetrics {
	return callscribe.SpeakerMetrics{SpeakerID: 1, SpeakerAlias: callscribe.AliasUser, TalkSeconds: talk, TalkShare: share, WordsPerMinute: wpm, Turns: turns, LongestMonologueSeconds: monologue, Interruptions: interruptions}
}

func ptr(f float64) *float64 { return &f }

// overlapCall: A 1-6, U 5-9 (cuts in for 1 s), A 11-15, U 14-18 (again 1 s),
// A 18.5-19, in a 20 s recording; every speaker at 120 words a minute.
var overlapCall = []callscribe.Segment{
	seg(0, 1, 6, 10), seg(1, 5, 9, 8), seg(0, 11, 15, 8), seg(1, 14, 18, 8), seg(0, 18.5, 19, 1),
}

var overlapWant = &callscribe.CallMetrics{
	Speakers: []callscribe.SpeakerMetrics{
		agent(9.5, 0.5429, 120, 3, 5, 0),
		user(8, 0.4571, 120, 2, 4, 2),
	},
	NonTalkSeconds:        4.5, // 20 - (1-9, 11-18, 18.5-19)
	LongestSilenceSeconds: 2,   // 9-11
	OvertalkSeconds:       2,   // 5-6 and 14-15
	OvertalkCount:         2,
	// User ends 9 -> Agent 11 (2 s), User ends 18 -> Agent 18.5 (0.5 s).
	AgentMedianResponseSeconds: ptr(1.25),
}

func TestCompute(t *testing.T) {
	shuffled := []callscribe.Segment{overlapCall[3], overlapCall[0], overlapCall[4], overlapCall[2], overlapCall[1]}
	tests := []struct {
		name     string
		segments []callscribe.Segment
		duration float64
		want     *callscribe.CallMetrics
	}{
		{
			name:     "no overlap",
			segments: []callscribe.Segment{seg(0, 0, 4, 8), seg(1, 5, 8, 6), seg(0, 9, 10, 2)},
			duration: 12,
			want: &callscribe.CallMetrics{
				Speakers:                   []callscribe.SpeakerMetrics{agent(5, 0.625, 120, 2, 4, 0), user(3, 0.375, 120, 1, 3, 0)},
				NonTalkSeconds:             4,
				LongestSilenceSeconds:      2, // trailing 10-12
				AgentMedianResponseSeconds: ptr(1),
			},
		},
		{name: "known overlap and gaps", segments: overlapCall, duration: 20, want: overlapWant},
		{name: "unsorted input", segments: shuffled, duration: 20, want: overlapWant},
		{
			// A backchannel of 0.3 s is not an interruption; 1 s is, and so is
			// exactly the threshold (0.5 s).
			name:     "interruption vs backchannel",
			segments: []callscribe.Segment{seg(0, 0, 10, 20), seg(1, 3, 3.3, 1), seg(1, 6, 7, 2), seg(1, 8, 8.5, 1)},
			duration: 10,
			want: &callscribe.CallMetrics{
				Speakers: []callscribe.SpeakerMetrics{
					agent(10, 0.8475, 120, 1, 10, 0),
					// All three User spans lie inside the Agent's turn: the 0.3 s
					// one is a backchannel, the 1 s and 0.5 s cut-ins are turns of
					// their own; the Agent keeps one turn.
					user(1.8, 0.1525, 133.3, 2, 1, 2),
				},
				OvertalkSeconds: 1.8,
				OvertalkCount:   3,
			},
		},
		{
			name:     "mono",
			segments: []callscribe.Segment{seg(0, 0, 3, 5), seg(0, 4, 9, 10)},
			duration: 10,
			want: &callscribe.CallMetrics{
				Speakers:              []callscribe.SpeakerMetrics{agent(8, 1, 112.5, 1, 9, 0)},
				NonTalkSeconds:        2,
				LongestSilenceSeconds: 1,
			},
		},
		{
			name:     "empty transcript",
			duration: 7,
			want:     &callscribe.CallMetrics{Speakers: []callscribe.SpeakerMetrics{}, NonTalkSeconds: 7, LongestSilenceSeconds: 7},
		},
		{
			name:     "segments without words are not talk",
			segments: []callscribe.Segment{seg(0, 0, 3, 0), {Text: "  ", TimeStart: 3, TimeEnd: 5, SpeakerID: 1, SpeakerAlias: callscribe.AliasUser}},
			duration: 5,
			want:     &callscribe.CallMetrics{Speakers: []callscribe.SpeakerMetrics{}, NonTalkSeconds: 5, LongestSilenceSeconds: 5},
		},
		{
			name:     "talk past the duration is clipped",
			segments: []callscribe.Segment{seg(0, 1, 6, 8)},
			duration: 5,
			want: &callscribe.CallMetrics{
				Speakers:              []callscribe.SpeakerMetrics{agent(4, 1, 120, 1, 4, 0)},
				NonTalkSeconds:        1,
				LongestSilenceSeconds: 1,
			},
		},
		{
			name:     "unknown duration ends at the last word",
			segments: []callscribe.Segment{seg(1, 2, 4, 4), seg(0, 5, 6, 2)},
			duration: 0,
			want: &callscribe.CallMetrics{
				Speakers:                   []callscribe.SpeakerMetrics{agent(1, 0.3333, 120, 1, 1, 0), user(2, 0.6667, 120, 1, 2, 0)},
				NonTalkSeconds:             3,
				LongestSilenceSeconds:      2,
				AgentMedianResponseSeconds: ptr(1),
			},
		},
		{
			// A gap of 0 (the Agent answers as the User stops) and one of
			// exactly the cap are no response time.
			name:     "response gaps outside (0, cap) are ignored",
			segments: []callscribe.Segment{seg(1, 0, 2, 4), seg(0, 2, 3, 2), seg(1, 3, 4, 2), seg(0, 4+ResponseCapSeconds, 15, 2)},
			duration: 15,
			want: &callscribe.CallMetrics{
				Speakers:              []callscribe.SpeakerMetrics{agent(2, 0.4, 120, 2, 1, 0), user(3, 0.6, 120, 2, 2, 0)},
				NonTalkSeconds:        10,
				LongestSilenceSeconds: 10,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compute(tt.segments, tt.duration)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Compute:\n got %+v (response %v)\nwant %+v (response %v)", got, deref(got.AgentMedianResponseSeconds), tt.want, deref(tt.want.AgentMedianResponseSeconds))
			}
		})
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// wseg builds a segment spanning start..end whose words are timed as given
// (each [start, end]); its text has one word per timing.
func wseg(speaker int, start, end float64, words ...[2]float64) callscribe.Segment {
	s := seg(speaker, start, end, len(words))
	for i, w := range words {
		s.Words = append(s.Words, callscribe.Word{Text: "word" + string(rune('a'+i)), Start: w[0], End: w[1]})
	}
	return s
}

// TestComputeFromWords: where segments carry words, talk is the words' times
// with pauses shorter than BridgeSeconds joined; turns and the response delay
// use a segment's first and last word.
func TestComputeFromWords(t *testing.T) {
	tests := []struct {
		name     string
		segments []callscribe.Segment
		duration float64
		want     *callscribe.CallMetrics
	}{
		{
			// The segment spans 0-5, but 2-3 is a pause: 4 s of talk, not 5.
			name:     "a pause inside a segment longer than the bridge is not talk",
			segments: []callscribe.Segment{wseg(0, 0, 5, [2]float64{0, 1}, [2]float64{1.1, 2}, [2]float64{3, 4}, [2]float64{4.2, 5})},
			duration: 6,
			want: &callscribe.CallMetrics{
				Speakers:              []callscribe.SpeakerMetrics{agent(4, 1, 60, 1, 5, 0)},
				NonTalkSeconds:        2,
				LongestSilenceSeconds: 1, // 2-3 and 5-6
			},
		},
		{
			// A pause of 0.29 s is joined, one of exactly 0.3 s is not.
			name:     "the bridge threshold",
			segments: []callscribe.Segment{wseg(0, 0, 3, [2]float64{0, 1}, [2]float64{1.29, 2}, [2]float64{2.3, 3})},
			duration: 3,
			want: &callscribe.CallMetrics{
				Speakers:              []callscribe.SpeakerMetrics{agent(2.7, 1, 66.7, 1, 3, 0)},
				NonTalkSeconds:        0.3,
				LongestSilenceSeconds: 0.3,
			},
		},
		{
			// The User's segment starts at 1.5 but its first word at 2.4: the
			// overtalk is 2.4-3 (0.6 s, an interruption), not 1.5-3.
			name: "overlapping words across speakers",
			segments: []callscribe.Segment{
				wseg(0, 0, 3, [2]float64{0, 0.9}, [2]float64{1, 1.9}, [2]float64{2, 3}),
				wseg(1, 1.5, 4, [2]float64{2.4, 3.2}, [2]float64{3.3, 4}),
			},
			duration: 5,
			want: &callscribe.CallMetrics{
				Speakers:              []callscribe.SpeakerMetrics{agent(3, 0.6522, 60, 1, 3, 0), user(1.6, 0.3478, 75, 1, 1.6, 1)},
				NonTalkSeconds:        1,
				LongestSilenceSeconds: 1,
				OvertalkSeconds:       0.6,
				OvertalkCount:         1,
			},
		},
		{
			// Three words with 0.2 s pauses while the Agent talks on: one
			// stretch of talk, one interruption, one turn inside the Agent's.
			name: "a cut-in of several words is one interruption",
			segments: []callscribe.Segment{
				seg(0, 0, 6, 12),
				wseg(1, 2, 3.5, [2]float64{2, 2.4}, [2]float64{2.6, 3}, [2]float64{3.2, 3.5}),
			},
			duration: 6,
			want: &callscribe.CallMetrics{
				Speakers:        []callscribe.SpeakerMetrics{agent(6, 0.8, 120, 1, 6, 0), user(1.5, 0.2, 120, 1, 1.5, 1)},
				OvertalkSeconds: 1.5,
				OvertalkCount:   1,
			},
		},
		{
			name: "mono",
			segments: []callscribe.Segment{
				wseg(0, 0, 4, [2]float64{0.5, 1}, [2]float64{1.1, 1.5}),
				wseg(0, 5, 8, [2]float64{5, 6}, [2]float64{7, 8}),
			},
			duration: 9,
			want: &callscribe.CallMetrics{
				// One turn from the first word (0.5) to the last (8).
				Speakers:              []callscribe.SpeakerMetrics{agent(3, 1, 80, 1, 7.5, 0)},
				NonTalkSeconds:        6,
				LongestSilenceSeconds: 3.5, // 1.5-5
			},
		},
		{
			// The User's segment runs to 3 but its last word ends at 2, so the
			// Agent (a segment without words, from 3) answers after 1 s.
			name: "segments with and without words",
			segments: []callscribe.Segment{
				wseg(1, 0, 3, [2]float64{0.2, 1}, [2]float64{1.1, 2}),
				seg(0, 3, 5, 4),
			},
			duration: 6,
			want: &callscribe.CallMetrics{
				Speakers:                   []callscribe.SpeakerMetrics{agent(2, 0.5263, 120, 1, 2, 0), user(1.8, 0.4737, 66.7, 1, 1.8, 0)},
				NonTalkSeconds:             2.2,
				LongestSilenceSeconds:      1, // 2-3 and 5-6
				AgentMedianResponseSeconds: ptr(1),
			},
		},
		{
			// The words come out of order and two overlap: talk is their union.
			name:     "words in any order, overlapping words count once",
			segments: []callscribe.Segment{wseg(0, 0, 3, [2]float64{2, 3}, [2]float64{0, 1.2}, [2]float64{1, 1.5})},
			duration: 3,
			want: &callscribe.CallMetrics{
				Speakers:              []callscribe.SpeakerMetrics{agent(2.5, 1, 72, 1, 3, 0)},
				NonTalkSeconds:        0.5,
				LongestSilenceSeconds: 0.5,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compute(tt.segments, tt.duration)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Compute:\n got %+v (response %v)\nwant %+v (response %v)", got, deref(got.AgentMedianResponseSeconds), tt.want, deref(tt.want.AgentMedianResponseSeconds))
			}
		})
	}
}
