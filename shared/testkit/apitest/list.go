package apitest

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func createdAt(it map[string]any) time.Time {
	s, _ := it["created_at"].(string)
	ts, _ := time.Parse(time.RFC3339Nano, s)
	return ts
}

func ids(items []map[string]any) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i], _ = it["job_id"].(string)
	}
	return out
}

// checkNewestFirst requires created_at non-increasing and no duplicate job ids.
func checkNewestFirst(t testing.TB, what string, items []map[string]any) {
	t.Helper()
	seen := map[string]bool{}
	for i, it := range items {
		id, _ := it["job_id"].(string)
		if seen[id] {
			t.Errorf("%s: job %s listed twice", what, id)
		}
		seen[id] = true
		if i > 0 && createdAt(it).After(createdAt(items[i-1])) {
			t.Errorf("%s: entry %d (%s, %v) is newer than entry %d (%v): not newest first", what, i, id, it["created_at"], i-1, items[i-1]["created_at"])
		}
	}
}

// testList covers GET /v1/transcriptions on a small account: default page,
// ordering across types, the INVALID_PAGINATION and INVALID_FILTER rows.
func (s *suite) testList(t *testing.T) {
	a, b := s.newAccount(t), s.newAccount(t)
	var order []string // creation order, created one after the other
	add := func(id string) {
		if id == "" {
			t.FailNow()
		}
		order = append(order, id)
	}
	u1 := a.MustUpload(t, Upload{Filename: "list-1.wav", Data: MakeWAV(0.25, 2, false)})
	add(u1)
	s.mustSucceed(t, a, u1)
	s1 := a.MustDerive(t, "summary", map[string]string{"transcript_text": "Agent: hi. User: my internet is down."})
	add(s1)
	t1 := a.MustDerive(t, "tags", map[string]string{"transcription_job_id": u1})
	add(t1)
	u2 := a.MustUpload(t, Upload{Filename: "list-de.wav", Data: MakeWAV(0.25, 1, false), Language: s.opts.FailLanguage})
	add(u2)
	s2 := a.MustDerive(t, "summary", map[string]string{"transcription_job_id": u1})
	add(s2)
	for i := 3; i <= 10; i++ {
		add(a.MustUpload(t, Upload{Filename: fmt.Sprintf("list-%d.wav", i), Data: MakeWAV(0.1, 1, false), Language: "en"}))
	}
	for _, id := range order {
		s.WaitJob(t, a, id)
	}
	bJob := b.MustUpload(t, Upload{Filename: "b1.wav", Data: MakeWAV(0.1, 1, false)})
	b.MustUpload(t, Upload{Filename: "b2.wav", Data: MakeWAV(0.1, 1, false)})

	// Default page size 10, then the rest, newest first, mixing the three types.
	r := a.List(t, nil)
	first := listItems(t, r)
	cursor, _ := r.Body["next_cursor"].(string)
	if len(first) != 10 || cursor == "" {
		t.Fatalf("%s: want 10 items and a next_cursor (13 jobs exist)", r)
	}
	r2 := a.List(t, url.Values{"cursor": {cursor}})
	second := listItems(t, r2)
	if len(second) != 3 || r2.Body["next_cursor"] != nil {
		t.Errorf("%s: want the last 3 items and next_cursor null", r2)
	}
	all := append(first, second...)
	checkNewestFirst(t, "default listing", all)
	if len(all) == len(order) {
		pos := map[string]int{}
		for i, id := range ids(all) {
			pos[id] = i
		}
		for i := range order {
			for j := i + 1; j < len(order); j++ {
				if _, ok := pos[order[i]]; !ok {
					break
				}
				if _, ok := pos[order[j]]; !ok {
					continue
				}
				ci, cj := createdAt(all[pos[order[i]]]), createdAt(all[pos[order[j]]])
				if cj.Before(ci) {
					t.Errorf("job %s was created after %s but has an earlier created_at", order[j], order[i])
				}
				if cj.After(ci) && pos[order[j]] > pos[order[i]] {
					t.Errorf("job %s (created later) is listed after %s", order[j], order[i])
				}
			}
		}
		types := map[string]bool{}
		for _, it := range all {
			types[it["type"].(string)] = true
		}
		if len(types) != 3 {
			t.Errorf("listing mixes types %v; want all three", types)
		}
	}
	if !slices.Equal(sorted(ids(all)), sorted(order)) {
		t.Errorf("listing %v != created %v", ids(all), order)
	}
	byID := map[string]map[string]any{}
	for _, it := range all {
		byID[it["job_id"].(string)] = it
	}
	if it := byID[u1]; it != nil && (it["original_filename"] != "list-1.wav" || it["type"] != "transcription" || it["status"] != "succeeded") {
		t.Errorf("entry of %s: %v", u1, it)
	}
	if it := byID[u2]; it != nil && (it["language"] != s.opts.FailLanguage || it["status"] != "failed") {
		t.Errorf("entry of the failed job %s: %v", u2, it)
	}
	if it := byID[s1]; it != nil && (it["language"] != nil || it["original_filename"] != nil || it["type"] != "summary") {
		t.Errorf("entry of the summary from text %s: %v (language and original_filename must be null)", s1, it)
	}
	if it := byID[t1]; it != nil && it["type"] != "tags" {
		t.Errorf("entry of %s: %v", t1, it)
	}
	if it := byID[order[len(order)-1]]; it != nil && it["language"] != "en" {
		t.Errorf("entry of a job uploaded with language en: %v", it)
	}

	if r := a.List(t, url.Values{"limit": {"1000"}}); len(listItems(t, r)) != len(order) || r.Body["next_cursor"] != nil {
		t.Errorf("%s: limit=1000 with 13 jobs: want all 13 and no cursor", r)
	}
	if got := ids(collect(t, a, nil, 3)); !slices.Equal(got, ids(all)) {
		t.Errorf("pages of 3: %v, want %v", got, ids(all))
	}

	for _, l := range []string{"0", "-1", "abc", "1.5", "10abc", "-0", "0x10", "5 5"} {
		expectError(t, a.List(t, url.Values{"limit": {l}}), http.StatusBadRequest, "INVALID_PAGINATION")
	}
	r = a.List(t, url.Values{"limit": {"3"}})
	cur, _ := r.Body["next_cursor"].(string)
	if cur == "" {
		t.Fatalf("%s: want a cursor", r)
	}
	tampered := []string{
		"garbage", "%%%", "null", "0", cur + "A", cur[:len(cur)-1], cur[1:],
		flipChar(cur, 0), flipChar(cur, len(cur)/2), flipChar(cur, len(cur)-2),
	}
	for _, c := range tampered {
		if c == cur {
			continue
		}
		r := a.List(t, url.Values{"cursor": {c}})
		if r.Status != http.StatusBadRequest || r.ErrCode() != "INVALID_PAGINATION" {
			t.Errorf("cursor %q (from %q): %s; want 400 INVALID_PAGINATION", c, cur, r)
		}
	}
	// A cursor issued to another account is refused, both ways.
	rb := b.List(t, url.Values{"limit": {"1"}})
	bCur, _ := rb.Body["next_cursor"].(string)
	if bCur == "" {
		t.Errorf("%s: want a cursor", rb)
	} else {
		expectError(t, a.List(t, url.Values{"cursor": {bCur}}), http.StatusBadRequest, "INVALID_PAGINATION")
	}
	expectError(t, b.List(t, url.Values{"cursor": {cur}}), http.StatusBadRequest, "INVALID_PAGINATION")
	// The untouched cursor still works, also with filters and another limit.
	if r := a.List(t, url.Values{"cursor": {cur}, "limit": {"100"}}); len(listItems(t, r)) != len(order)-3 {
		t.Errorf("%s: want the %d jobs after the first page", r, len(order)-3)
	}

	for _, f := range []url.Values{
		{"status": {"done"}}, {"status": {"success"}}, {"status": {"1"}},
		{"type": {"audio"}}, {"type": {"transcriptions"}},
		{"job_id": {"not-a-uuid"}}, {"job_id": {"1234"}}, {"job_id": {strings.ReplaceAll(u1, "-", "") + "zz"}},
		{"source_job_id": {"not-a-uuid"}}, {"source_job_id": {strings.ReplaceAll(u1, "-", "")}}, {"source_job_id": {u1 + "0"}},
		{"source_job_id": {u1}, "type": {"audio"}},
		{"created_after": {"yesterday"}}, {"created_after": {"2026-13-45T00:00:00Z"}}, {"created_after": {"12/01/2026"}},
	} {
		r := a.List(t, f)
		if r.Status != http.StatusBadRequest || r.ErrCode() != "INVALID_FILTER" {
			t.Errorf("filter %v: %s; want 400 INVALID_FILTER", f, r)
		}
	}

	// A transcription's derived jobs, newest first, with the other filters
	// (AND) and page by page; any case of the id.
	for _, c := range []struct {
		q    url.Values
		want []string
	}{
		{url.Values{"source_job_id": {u1}}, []string{s2, t1}},
		{url.Values{"source_job_id": {strings.ToUpper(u1)}}, []string{s2, t1}},
		{url.Values{"source_job_id": {u1}, "type": {"tags"}}, []string{t1}},
		{url.Values{"source_job_id": {u1}, "type": {"summary"}, "status": {"succeeded"}}, []string{s2}},
		{url.Values{"source_job_id": {u1}, "type": {"transcription"}}, nil},
		{url.Values{"source_job_id": {u2}}, nil},
		{url.Values{"source_job_id": {s2}}, nil},
	} {
		if got := ids(collect(t, a, c.q, 1)); !slices.Equal(got, c.want) {
			t.Errorf("listing %v one per page: %v, want %v", c.q, got, c.want)
		}
	}
	if r := a.List(t, url.Values{"source_job_id": {u1}}); len(listItems(t, r)) != 2 || r.Body["next_cursor"] != nil {
		t.Errorf("%s: want both derived jobs of %s on one page and next_cursor null", r, u1)
	}
	// Each entry names its source as the job read does: on derived jobs made
	// from a transcription, never on transcriptions.
	for _, e := range listItems(t, a.List(t, url.Values{"limit": {"100"}})) {
		id, _ := e["job_id"].(string)
		src, has := e["source_job_id"]
		switch {
		case id == s2 || id == t1:
			if src != u1 {
				t.Errorf("list entry %s: source_job_id %v, want %s", id, src, u1)
			}
		case e["type"] == "transcription" && has:
			t.Errorf("list entry %s: a transcription with source_job_id %v", id, src)
		}
	}

	// Another account's jobs are invisible, also by job_id and source_job_id.
	if items := listItems(t, b.List(t, url.Values{"job_id": {u1}})); len(items) != 0 {
		t.Errorf("account b lists account a's job %s", u1)
	}
	if items := listItems(t, b.List(t, url.Values{"source_job_id": {u1}})); len(items) != 0 {
		t.Errorf("account b lists the derived jobs of account a's job %s", u1)
	}
	if got := ids(collect(t, b, nil, 100)); len(got) != 2 || !slices.Contains(got, bJob) {
		t.Errorf("account b lists %v; want its own 2 jobs", got)
	}
}

func sorted(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

type pagJob struct {
	id, kind, language, filename string
	fail                         bool
}

// testPagination creates PaginationJobs jobs of all three types, then pages
// through them with and without filters: no duplicates, no gaps, newest first,
// next_cursor null on the last page.
func (s *suite) testPagination(t *testing.T) {
	a := s.newAccount(t)
	n := s.opts.PaginationJobs
	src := a.MustUpload(t, Upload{Filename: "p-source.wav", Data: MakeWAV(0.1, 2, false), Language: "en"})
	if src == "" {
		t.FailNow()
	}
	s.mustSucceed(t, a, src)
	jobs := map[string]pagJob{src: {id: src, kind: "transcription", language: "en", filename: "p-source.wav"}}
	var mu sync.Mutex
	wav := MakeWAV(0.1, 1, false)
	idx := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range idx {
				var j pagJob
				switch i % 5 {
				case 0, 1:
					j.kind = "summary"
					if i%5 == 1 {
						j.kind = "tags"
					}
					var body map[string]string
					if i%10 < 2 {
						body = map[string]string{"transcription_job_id": src}
						j.language = "en"
					} else {
						body = map[string]string{"transcript_text": fmt.Sprintf("Agent: hello, call %d. User: I need help with my order %d.", i, i)}
					}
					j.id = a.MustDerive(t, j.kind, body)
				default:
					j.kind, j.filename = "transcription", fmt.Sprintf("p-%03d.wav", i)
					switch i % 5 {
					case 2:
						j.language = "en"
					case 3:
						j.language, j.fail = s.opts.FailLanguage, true
					}
					j.id = a.MustUpload(t, Upload{Filename: j.filename, Data: wav, Language: j.language})
				}
				if j.id != "" {
					mu.Lock()
					jobs[j.id] = j
					mu.Unlock()
				}
			}
		}()
	}
	for i := 1; i < n; i++ {
		idx <- i
	}
	close(idx)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("created %d jobs in %v", len(jobs), time.Since(start).Round(time.Millisecond))

	// Wait until nothing is queued or processing.
	deadline := time.Now().Add(s.opts.JobTimeout)
	for {
		busy := 0
		for _, st := range []string{"queued", "processing"} {
			busy += len(listItems(t, a.List(t, url.Values{"status": {st}, "limit": {"100"}})))
		}
		if busy == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d jobs still in progress after %v", busy, s.opts.JobTimeout)
		}
		time.Sleep(s.opts.PollInterval)
	}

	full := collect(t, a, nil, 100)
	checkNewestFirst(t, "full listing", full)
	if len(full) != len(jobs) {
		t.Fatalf("full listing has %d jobs, created %d", len(full), len(jobs))
	}
	for _, it := range full {
		id := it["job_id"].(string)
		j, ok := jobs[id]
		if !ok {
			t.Errorf("listed job %s was never created", id)
			continue
		}
		wantStatus := "succeeded"
		if j.fail {
			wantStatus = "failed"
		}
		if it["type"] != j.kind || it["status"] != wantStatus {
			t.Errorf("job %s: listed as %v/%v, want %s/%s", id, it["type"], it["status"], j.kind, wantStatus)
		}
		if j.kind == "transcription" {
			if it["original_filename"] != j.filename {
				t.Errorf("job %s: original_filename %v, want %s", id, it["original_filename"], j.filename)
			}
			if sec, _ := num(it["audio_seconds"]); !approx(sec, 0.1) {
				t.Errorf("job %s: audio_seconds %v, want 0.1", id, it["audio_seconds"])
			}
		}
		if j.language != "" && j.kind == "transcription" && it["language"] != j.language {
			t.Errorf("job %s uploaded with language %s lists language %v", id, j.language, it["language"])
		}
		if j.kind != "transcription" && j.language == "" && it["language"] != nil {
			t.Errorf("job %s from transcript_text lists language %v; want null", id, it["language"])
		}
	}

	match := func(pred func(map[string]any) bool) []string {
		var out []string
		for _, it := range full {
			if pred(it) {
				out = append(out, it["job_id"].(string))
			}
		}
		return out
	}
	field := func(k, v string) func(map[string]any) bool {
		return func(it map[string]any) bool { return it[k] == v }
	}
	tMid := createdAt(full[len(full)/2])
	tLate := createdAt(full[len(full)/4])
	after := func(ts time.Time) func(map[string]any) bool {
		return func(it map[string]any) bool { return createdAt(it).After(ts) }
	}
	and := func(ps ...func(map[string]any) bool) func(map[string]any) bool {
		return func(it map[string]any) bool {
			for _, p := range ps {
				if !p(it) {
					return false
				}
			}
			return true
		}
	}
	iso := func(ts time.Time) string { return ts.UTC().Format("2006-01-02T15:04:05.000Z") }
	isoOffset := func(ts time.Time) string {
		return ts.In(time.FixedZone("", 2*3600)).Format("2006-01-02T15:04:05.000-07:00")
	}
	pick := full[17]["job_id"].(string)

	cases := []struct {
		name    string
		filters url.Values
		limit   int
		want    []string
	}{
		{"all/limit50", nil, 50, ids(full)},
		{"all/default", nil, 0, ids(full)},
		{"all/limit7", nil, 7, ids(full)},
		{"status=failed", url.Values{"status": {"failed"}}, 7, match(field("status", "failed"))},
		{"status=succeeded", url.Values{"status": {"succeeded"}}, 30, match(field("status", "succeeded"))},
		{"status=queued", url.Values{"status": {"queued"}}, 10, nil},
		{"type=summary", url.Values{"type": {"summary"}}, 25, match(field("type", "summary"))},
		{"type=tags", url.Values{"type": {"tags"}}, 0, match(field("type", "tags"))},
		{"type=transcription", url.Values{"type": {"transcription"}}, 100, match(field("type", "transcription"))},
		{"language=de", url.Values{"language": {s.opts.FailLanguage}}, 9, match(field("language", s.opts.FailLanguage))},
		{"language=en", url.Values{"language": {"en"}}, 13, match(field("language", "en"))},
		{"created_after", url.Values{"created_after": {iso(tMid)}}, 11, match(after(tMid))},
		{"created_after+offset", url.Values{"created_after": {isoOffset(tMid)}}, 40, match(after(tMid))},
		{"created_after=past", url.Values{"created_after": {"2000-01-01T00:00:00Z"}}, 100, ids(full)},
		{"created_after=future", url.Values{"created_after": {iso(time.Now().Add(24 * time.Hour))}}, 100, nil},
		{"job_id", url.Values{"job_id": {pick}}, 10, []string{pick}},
		{"job_id=unknown", url.Values{"job_id": {newUUID()}}, 10, nil},
		{"job_id+type mismatch", url.Values{"job_id": {src}, "type": {"summary"}}, 10, nil},
		{"combined", url.Values{"type": {"transcription"}, "status": {"succeeded"}, "language": {"en"}, "created_after": {iso(tLate)}}, 5,
			match(and(field("type", "transcription"), field("status", "succeeded"), field("language", "en"), after(tLate)))},
		{"combined2", url.Values{"type": {"summary"}, "created_after": {iso(tMid)}}, 4,
			match(and(field("type", "summary"), after(tMid)))},
		{"combined3", url.Values{"status": {"failed"}, "language": {s.opts.FailLanguage}, "type": {"transcription"}}, 100,
			match(and(field("status", "failed"), field("language", s.opts.FailLanguage), field("type", "transcription")))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := ids(collect(t, a, c.filters, c.limit))
			if !slices.Equal(got, c.want) {
				t.Errorf("filters %v limit %d: got %d jobs, want %d\n got: %v\nwant: %v", c.filters, c.limit, len(got), len(c.want), got, c.want)
			}
		})
	}
	if n := len(match(field("status", "failed"))); n == 0 || n == len(full) {
		t.Errorf("the data set should mix failed and succeeded jobs, has %d failed", n)
	}

	t.Run("cap", func(t *testing.T) {
		t.Parallel()
		r := a.List(t, url.Values{"limit": {"1000"}})
		if items := listItems(t, r); len(items) != 100 || r.Body["next_cursor"] == nil {
			t.Errorf("%s: limit=1000 with %d jobs: want 100 items and a next_cursor", r, len(full))
		}
		r = a.List(t, url.Values{"limit": {"99999999999999999999999"}})
		if items := listItems(t, r); len(items) != 100 {
			t.Errorf("%s: a huge limit is capped to 100", r)
		}
		r = a.List(t, nil)
		if items := listItems(t, r); len(items) != 10 || r.Body["next_cursor"] == nil {
			t.Errorf("%s: default limit want 10 items and a cursor", r)
		}
		// The exact-multiple case: 250 jobs in pages of 50 is 5 pages, the fifth with a null cursor.
		pages, cursor := 0, ""
		for {
			q := url.Values{"limit": {"50"}}
			if cursor != "" {
				q.Set("cursor", cursor)
			}
			r := a.List(t, q)
			if r.Status != http.StatusOK {
				t.Fatalf("%s", r)
			}
			pages++
			cursor, _ = r.Body["next_cursor"].(string)
			if cursor == "" || pages > 20 {
				break
			}
		}
		if want := (len(full) + 49) / 50; pages != want {
			t.Errorf("%d jobs in pages of 50 took %d pages, want %d", len(full), pages, want)
		}
	})
}
