// Package callmetrics computes a call's conversation figures (who talked how
// much, how fast, over whom, and how quickly the agent answered) from a
// transcript's speaker-attributed segments and the audio's duration. It is pure
// domain logic: no I/O, no engine, the same answer on every stack.
//
// Definitions (seconds throughout; a segment is talk only when its text has a
// word; spans are clipped to [0, duration], or to the last segment's end when
// the duration is unknown):
//
//   - talk_seconds: the length of the union of a speaker's spans, so
//     overlapping segments of one speaker count once.
//   - talk_share: a speaker's talk_seconds over the sum of all speakers'
//     talk_seconds (overtalk counts for both), so the shares add up to 1.
//   - words_per_minute: a speaker's words over its talk_seconds in minutes.
//   - turns: the maximal runs of one speaker's consecutive spans, the spans
//     ordered by start time; a speaker's turns are the runs that are its. A
//     span said wholly inside the other speaker's turn does not end that
//     turn: shorter than [InterruptionMinOverlapSeconds] it is a backchannel
//     and no turn at all; longer, a turn of its own.
//   - longest_monologue_seconds: a speaker's longest turn, from its first
//     span's start to its latest end (pauses inside the turn included).
//   - non_talk_seconds: the duration less the union of everyone's talk.
//   - longest_silence_seconds: the longest stretch with nobody talking,
//     including before the first word and after the last.
//   - overtalk_seconds: the time two speakers talk at once; overtalk_count: the
//     number of separate stretches of it.
//   - interruptions (per speaker): the times the speaker starts talking while
//     the other is mid-talk and both keep talking for at least
//     [InterruptionMinOverlapSeconds]; a shorter overlap is a backchannel.
//   - agent_median_response_seconds: the median, over each User turn followed
//     by an Agent turn, of the gap from the User turn's end to the Agent turn's
//     start, counting only gaps above 0 and below [ResponseCapSeconds]; null
//     when there is none (mono audio, one-sided calls).
//
// Mono audio has one speaker: its figures, zero overtalk and interruptions,
// and a null response time. Figures are rounded (see the Round constants) so
// a stored result does not carry float noise.
//
// Every segment is one span carrying all its words, also where segments now
// carry word timings. Using the words would make pauses inside a segment
// non-talk time, but it is more than a change of [spansOf]: turns must stay
// segment-level (a word is shorter than the backchannel threshold), and a
// speaker's talk must bridge short pauses before interruptions are counted,
// or one cut-in of several words would count several times.
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

// span is a stretch of one speaker's talk and the words said in it.
type span struct {
	speaker    int
	alias      string
	start, end float64
	words      int
}

// interval is a stretch of time, start < end.
type interval struct{ start, end float64 }

// spansOf turns a segment into talk spans: the segment's own times with all
// its words (see the package doc for what using word times would take).
func spansOf(seg callscribe.Segment) []span {
	words := len(strings.Fields(seg.Text))
	if words == 0 {
		return nil
	}
	return []span{{speaker: seg.SpeakerID, alias: seg.SpeakerAlias, start: seg.TimeStart, end: seg.TimeEnd, words: words}}
}

// Compute returns the figures of a transcript whose audio lasts
// durationSeconds (0 when unknown). The segments may come in any order.
func Compute(segments []callscribe.Segment, durationSeconds float64) *callscribe.CallMetrics {
	var spans []span
	for _, seg := range segments {
		spans = append(spans, spansOf(seg)...)
	}
	callEnd := durationSeconds
	if callEnd <= 0 {
		for _, s := range spans {
			callEnd = max(callEnd, s.end)
		}
	}
	// Clip to the call; words of a span clipped to nothing still count toward
	// its speaker's words (the engine heard them), but add no talk time.
	for i := range spans {
		spans[i].start = min(max(spans[i].start, 0), callEnd)
		spans[i].end = min(max(spans[i].end, spans[i].start), callEnd)
	}
	sort.SliceStable(spans, func(i, j int) bool {
		a, b := spans[i], spans[j]
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
		talk  []interval // union, ordered
	}
	bySpeaker := map[int]*speakerState{}
	var ids []int
	for _, s := range spans {
		st := bySpeaker[s.speaker]
		if st == nil {
			st = &speakerState{out: callscribe.SpeakerMetrics{SpeakerID: s.speaker, SpeakerAlias: s.alias}}
			bySpeaker[s.speaker] = st
			ids = append(ids, s.speaker)
		}
		st.words += s.words
		st.talk = appendUnion(st.talk, s.start, s.end)
	}
	sort.Ints(ids)

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
	for _, s := range spans {
		if floor >= 0 && turns[floor].speaker != s.speaker && s.end <= turns[floor].end {
			// Said wholly inside the other speaker's turn: a backchannel is
			// no turn; a longer cut-in is a turn of its own, but the floor
			// stays with the speaker who kept talking.
			if s.end-s.start >= InterruptionMinOverlapSeconds {
				turns = append(turns, turn{speaker: s.speaker, alias: s.alias, start: s.start, end: s.end})
			}
			continue
		}
		if floor >= 0 && turns[floor].speaker == s.speaker {
			turns[floor].end = max(turns[floor].end, s.end)
			continue
		}
		turns = append(turns, turn{speaker: s.speaker, alias: s.alias, start: s.start, end: s.end})
		floor = len(turns) - 1
	}
	for _, t := range turns {
		st := bySpeaker[t.speaker]
		st.out.Turns++
		st.out.LongestMonologueSeconds = max(st.out.LongestMonologueSeconds, round(t.end-t.start, RoundSeconds))
	}

	// Silence: the gaps of everyone's talk, with the call's two ends.
	var all []interval
	for _, s := range spans {
		all = appendUnion(all, s.start, s.end)
	}
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

	// Interruptions: the start of a speaker's talk strictly inside another's,
	// with enough overlap to be more than a backchannel.
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

// appendUnion adds [start, end) to a union of intervals built from starts in
// ascending order; empty stretches add nothing.
func appendUnion(u []interval, start, end float64) []interval {
	if end <= start {
		return u
	}
	if n := len(u); n > 0 && start <= u[n-1].end {
		u[n-1].end = max(u[n-1].end, end)
		return u
	}
	return append(u, interval{start, end})
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
