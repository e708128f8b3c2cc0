// Package callmetrics computes a call's conversation figures (who talked how
// much, how fast, over whom, and how quickly the agent answered) from a
// transcript's speaker-attributed segments, their word timings, and the
// audio's duration. It is pure domain logic: no I/O, no engine, the same
// answer on every stack.
//
// Two units of time carry the figures (seconds throughout; times are clipped
// to [0, duration], or to the latest end when the duration is unknown; a
// segment counts only when its text has a word):
//
//   - talk: a speaker's word times, where a segment carries words, or the
//     segment's whole span where it carries none; pauses in a speaker's talk
//     shorter than [BridgeSeconds] are joined (the gaps between words of one
//     phrase), so a longer pause, also inside a segment, is not talk.
//   - utterance: one segment, from its first word's start to its last word's
//     end (its own span when it has no words). Turns are made of utterances:
//     a turn is who holds the floor, and a single word is shorter than the
//     backchannel threshold, so turns stay at the segment's level.
//
// Definitions:
//
//   - talk_seconds: the length of a speaker's talk (overlapping words or
//     segments of one speaker count once).
//   - talk_share: a speaker's talk_seconds over the sum of all speakers'
//     talk_seconds (overtalk counts for both), so the shares add up to 1.
//   - words_per_minute: a speaker's words over its talk_seconds in minutes.
//   - turns: the maximal runs of one speaker's consecutive utterances, the
//     utterances ordered by start time; a speaker's turns are the runs that
//     are its. An utterance said wholly inside the other speaker's turn does
//     not end that turn: shorter than [InterruptionMinOverlapSeconds] it is a
//     backchannel and no turn at all; longer, a turn of its own.
//   - longest_monologue_seconds: a speaker's longest turn, from its first
//     utterance's start to its latest end (pauses inside the turn included).
//   - non_talk_seconds: the duration less the union of everyone's talk.
//   - longest_silence_seconds: the longest stretch with nobody talking,
//     including before the first word and after the last.
//   - overtalk_seconds: the time two speakers talk at once; overtalk_count: the
//     number of separate stretches of it.
//   - interruptions (per speaker): the stretches of the speaker's talk that
//     start while the other is mid-talk and in which both keep talking for at
//     least [InterruptionMinOverlapSeconds]; a shorter overlap is a
//     backchannel. Bridging short pauses first makes a cut-in of several
//     words one interruption, not one per word.
//   - agent_median_response_seconds: the median, over each User turn followed
//     by an Agent turn, of the gap from the User turn's end to the Agent turn's
//     start, counting only gaps above 0 and below [ResponseCapSeconds]; null
//     when there is none (mono audio, one-sided calls).
//
// Mono audio has one speaker: its figures, zero overtalk and interruptions,
// and a null response time. Figures are rounded (see the Round constants) so
// a stored result does not carry float noise.
package callmetrics

import (
	"math"
	"sort"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
)

const (
	// InterruptionMinOverlapSeconds is how long both speakers must talk at
	// once, from the moment the second one starts, for that start to count as
	// an interruption. Backchannels ("mm-hmm", "yeah", "right") last about
	// 0.2–0.5 s and do not take the floor; a cut-in that keeps both talking
	// for half a second does.
	InterruptionMinOverlapSeconds = 0.5

	// BridgeSeconds is the longest pause inside a speaker's talk that still
	// counts as talk: the gaps between the words of one phrase (stop
	// closures, breaths) last up to about a quarter of a second, while a
	// pause a listener notices, where the other could take the floor, is
	// longer.
	BridgeSeconds = 0.3

	// ResponseCapSeconds bounds the gaps that count as the agent's response
	// time: a longer silence is a hold, a lookup or a dropped line rather
	// than a reply latency, and would swamp the median.
	ResponseCapSeconds = 10.0

	// RoundSeconds is the decimals of every time figure: a millisecond is
	// finer than any engine's timestamps.
	RoundSeconds = 3
	// RoundShare is the decimals of talk_share (a hundredth of a percent).
	RoundShare = 4
	// RoundWordsPerMinute is the decimals of words_per_minute.
	RoundWordsPerMinute = 1
)

// timeEpsilon absorbs the float error of differences of times given to the
// millisecond when they are compared with a threshold.
const timeEpsilon = 1e-9

// utterance is one segment that has words: its speaker, its extent (first
// word to last, or the segment's span), its word count, and its talk (the
// words' times, or the extent when the segment carries none).
type utterance struct {
	speaker    int
	alias      string
	start, end float64
	words      int
	talk       []interval
}

// interval is a stretch of time, start <= end.
type interval struct{ start, end float64 }

// utteranceOf returns a segment's utterance; ok is false when its text has no
// word.
func utteranceOf(seg callscribe.Segment) (u utterance, ok bool) {
	words := len(strings.Fields(seg.Text))
	if words == 0 {
		return utterance{}, false
	}
	u = utterance{speaker: seg.SpeakerID, alias: seg.SpeakerAlias, start: seg.TimeStart, end: seg.TimeEnd, words: words}
	if len(seg.Words) == 0 {
		u.talk = []interval{{seg.TimeStart, max(seg.TimeEnd, seg.TimeStart)}}
		return u, true
	}
	u.start, u.end = math.Inf(1), math.Inf(-1)
	for _, w := range seg.Words {
		end := max(w.End, w.Start)
		u.talk = append(u.talk, interval{w.Start, end})
		u.start, u.end = min(u.start, w.Start), max(u.end, end)
	}
	return u, true
}

// clip bounds an interval to [0, end].
func clip(iv interval, end float64) interval {
	start := min(max(iv.start, 0), end)
	return interval{start, min(max(iv.end, start), end)}
}

// Compute returns the figures of a transcript whose audio lasts
// durationSeconds (0 when unknown). The segments, and a segment's words, may
// come in any order.
func Compute(segments []callscribe.Segment, durationSeconds float64) *callscribe.CallMetrics {
	var utts []utterance
	for _, seg := range segments {
		if u, ok := utteranceOf(seg); ok {
			utts = append(utts, u)
		}
	}
	callEnd := durationSeconds
	if callEnd <= 0 {
		for _, u := range utts {
			callEnd = max(callEnd, u.end)
		}
	}
	// Clip to the call; words of an utterance clipped to nothing still count
	// toward its speaker's words (the engine heard them), but add no time.
	for i := range utts {
		ext := clip(interval{utts[i].start, utts[i].end}, callEnd)
		utts[i].start, utts[i].end = ext.start, ext.end
		for j := range utts[i].talk {
			utts[i].talk[j] = clip(utts[i].talk[j], callEnd)
		}
	}
	sort.SliceStable(utts, func(i, j int) bool {
		a, b := utts[i], utts[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.end != b.end {
			return a.end < b.end
		}
		return a.speaker < b.speaker
	})

	type speakerState struct {
		out   callscribe.SpeakerMetrics
		words int
		talk  []interval // bridged union, ordered, each of positive length
	}
	bySpeaker := map[int]*speakerState{}
	var ids []int
	for _, u := range utts {
		st := bySpeaker[u.speaker]
		if st == nil {
			st = &speakerState{out: callscribe.SpeakerMetrics{SpeakerID: u.speaker, SpeakerAlias: u.alias}}
			bySpeaker[u.speaker] = st
			ids = append(ids, u.speaker)
		}
		st.words += u.words
		st.talk = append(st.talk, u.talk...)
	}
	sort.Ints(ids)
	for _, id := range ids {
		bySpeaker[id].talk = bridge(bySpeaker[id].talk, BridgeSeconds)
	}

	m := &callscribe.CallMetrics{Speakers: []callscribe.SpeakerMetrics{}}

	// Talk time, shares and speed.
	totalTalk := 0.0
	for _, id := range ids {
		totalTalk += length(bySpeaker[id].talk)
	}
	for _, id := range ids {
		st := bySpeaker[id]
		talk := length(st.talk)
		st.out.TalkSeconds = round(talk, RoundSeconds)
		if totalTalk > 0 {
			st.out.TalkShare = round(talk/totalTalk, RoundShare)
		}
		if talk > 0 {
			st.out.WordsPerMinute = round(float64(st.words)/(talk/60), RoundWordsPerMinute)
		}
	}

	// Turns and monologues.
	type turn struct {
		speaker    int
		alias      string
		start, end float64
	}
	var turns []turn
	floor := -1 // the turn of whoever holds the floor
	for _, u := range utts {
		if floor >= 0 && turns[floor].speaker != u.speaker && u.end <= turns[floor].end {
			// Said wholly inside the other speaker's turn: a backchannel is
			// no turn; a longer cut-in is a turn of its own, but the floor
			// stays with the speaker who kept talking.
			if u.end-u.start >= InterruptionMinOverlapSeconds {
				turns = append(turns, turn{speaker: u.speaker, alias: u.alias, start: u.start, end: u.end})
			}
			continue
		}
		if floor >= 0 && turns[floor].speaker == u.speaker {
			turns[floor].end = max(turns[floor].end, u.end)
			continue
		}
		turns = append(turns, turn{speaker: u.speaker, alias: u.alias, start: u.start, end: u.end})
		floor = len(turns) - 1
	}
	for _, t := range turns {
		st := bySpeaker[t.speaker]
		st.out.Turns++
		st.out.LongestMonologueSeconds = max(st.out.LongestMonologueSeconds, round(t.end-t.start, RoundSeconds))
	}

	// Silence: the gaps of everyone's talk, with the call's two ends.
	var all []interval
	for _, id := range ids {
		all = append(all, bySpeaker[id].talk...)
	}
	all = bridge(all, 0)
	m.NonTalkSeconds = round(max(callEnd-length(all), 0), RoundSeconds)
	longest, at := 0.0, 0.0
	for _, iv := range all {
		longest = max(longest, iv.start-at)
		at = iv.end
	}
	m.LongestSilenceSeconds = round(max(longest, callEnd-at), RoundSeconds)

	// Overtalk: a sweep over the speakers' unions (each disjoint within
	// itself), so the count of open intervals is the number talking.
	type event struct {
		at    float64
		delta int
	}
	var events []event
	for _, id := range ids {
		for _, iv := range bySpeaker[id].talk {
			events = append(events, event{iv.start, +1}, event{iv.end, -1})
		}
	}
	sort.Slice(events, func(i, j int) bool {
		if events[i].at != events[j].at {
			return events[i].at < events[j].at
		}
		return events[i].delta < events[j].delta // ends first: touching is not overlapping
	})
	talking, overtalk, episodes := 0, 0.0, 0
	episodeStart, lastEpisodeEnd := 0.0, math.Inf(-1)
	for _, e := range events {
		before := talking
		talking += e.delta
		switch {
		case before < 2 && talking >= 2:
			episodeStart = e.at
			if e.at != lastEpisodeEnd { // one speaker handing over to another mid-overlap is one episode
				episodes++
			}
		case before >= 2 && talking < 2:
			overtalk += e.at - episodeStart
			lastEpisodeEnd = e.at
		}
	}
	m.OvertalkSeconds = round(overtalk, RoundSeconds)
	m.OvertalkCount = episodes

	// Interruptions: a stretch of a speaker's talk that starts strictly inside
	// another's, with enough overlap to be more than a backchannel.
	for _, id := range ids {
		st := bySpeaker[id]
		for _, iv := range st.talk {
			for _, other := range ids {
				if other != id && interrupts(iv, bySpeaker[other].talk) {
					st.out.Interruptions++
					break
				}
			}
		}
	}

	// The agent's response time: User turn followed by an Agent turn.
	var gaps []float64
	for i := 0; i+1 < len(turns); i++ {
		if turns[i].alias != callscribe.AliasUser || turns[i+1].alias != callscribe.AliasAgent {
			continue
		}
		if gap := turns[i+1].start - turns[i].end; gap > 0 && gap < ResponseCapSeconds {
			gaps = append(gaps, gap)
		}
	}
	if len(gaps) > 0 {
		med := round(median(gaps), RoundSeconds)
		m.AgentMedianResponseSeconds = &med
	}

	for _, id := range ids {
		m.Speakers = append(m.Speakers, bySpeaker[id].out)
	}
	return m
}

// interrupts reports whether talk starting with iv cuts into one of others'
// intervals: it starts strictly inside one and both last at least
// InterruptionMinOverlapSeconds from that start.
func interrupts(iv interval, others []interval) bool {
	for _, o := range others {
		if o.start < iv.start && iv.start < o.end {
			return min(iv.end, o.end)-iv.start >= InterruptionMinOverlapSeconds
		}
	}
	return false
}

// bridge returns the union of ivs (in any order) with gaps shorter than gap
// closed, ordered, without stretches of zero length. A gap equal to gap stays
// open; the comparison allows for the float error of subtracting times given
// to the millisecond.
func bridge(ivs []interval, gap float64) []interval {
	s := append([]interval(nil), ivs...)
	sort.Slice(s, func(i, j int) bool { return s[i].start < s[j].start })
	var out []interval
	for _, iv := range s {
		if n := len(out); n > 0 && (iv.start <= out[n-1].end || iv.start-out[n-1].end < gap-timeEpsilon) {
			out[n-1].end = max(out[n-1].end, iv.end)
			continue
		}
		out = append(out, iv)
	}
	kept := out[:0]
	for _, iv := range out {
		if iv.end > iv.start {
			kept = append(kept, iv)
		}
	}
	return kept
}

func length(u []interval) float64 {
	total := 0.0
	for _, iv := range u {
		total += iv.end - iv.start
	}
	return total
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// round rounds x to the given decimals; dividing by the power of ten (not
// multiplying by its inverse) gives the nearest float to the decimal.
func round(x float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(x*p) / p
}
