// Command apibench measures the API's throughput and memory on the local stack
// (make bench-api): it starts the local binary, fills one account with jobs,
// and runs wrk against GET job, the first list page, the list with each filter
// (including filters that match nothing) and with a search (q) matching 10
// jobs or every job, and create-summary, beside a bare
// net/http handler serving the same GET body in the same run, reported as
// ratios. Then it uploads sixteen 10 MiB files at once and reports the
// process's peak RSS (VmHWM) before and after, speech decoders included.
//
// Throughput figures are only comparable within one run on one machine: the
// bare handler is the yardstick.
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	bin := flag.String("bin", "", "the local service binary (go build ./infra/embeddedserver)")
	jobs := flag.Int("jobs", 100000, "jobs to fill the account with")
	duration := flag.Duration("d", 5*time.Second, "wrk duration per endpoint")
	conns := flag.Int("c", 32, "wrk connections")
	uploads := flag.Int("uploads", 16, "concurrent 10 MiB uploads for the memory figure (0 skips)")
	settle := flag.Duration("settle", 30*time.Second, "how long the workers transcribe the uploads before the last RSS reading")
	searchSettle := flag.Duration("search-settle", 65*time.Second, "how long to wait after the fill for the local process's search-index merge (it checks every minute); 0 measures the index right after the writes")
	uploadPath := flag.String("upload-path", "direct", "direct or two-step: how the memory figure's uploads are sent")
	flag.Parse()
	if *bin == "" {
		log.Fatal("-bin is required")
	}
	if _, err := exec.LookPath("wrk"); err != nil {
		log.Fatal("wrk not found (Debian package wrk)")
	}
	dir, err := os.MkdirTemp("", "apibench-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	addr := freeAddr()
	base := "http://" + addr
	cmd := exec.Command(*bin)
	cmd.Env = append(os.Environ(), "LISTEN_ADDR="+addr, "DATA_DIR="+filepath.Join(dir, "data"), "LOG_LEVEL=error",
		"RATE_LIMIT_RPS=0", "QUOTA_MINUTES=100000", "WORKERS=2")
	logs, _ := os.Create(filepath.Join(dir, "service.log"))
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitHealthy(base)
	fmt.Printf("service pid %d; peak RSS after start: %s\n", cmd.Process.Pid, mib(vmHWM(cmd.Process.Pid)))

	key := apiKey(base)
	start := time.Now()
	ids := fill(base, key, *jobs)
	fmt.Printf("filled %d jobs in %s\n", len(ids), time.Since(start).Round(time.Second))
	// The two workers summarise the filled jobs; measured while they did, the
	// request path shared the two cores with that pipeline work (and the GET
	// body was a queued job's), so the runs below wait for the queue to drain.
	start = time.Now()
	waitDrained(base, key)
	fmt.Printf("the workers finished them in %s more\n", time.Since(start).Round(time.Second))
	// A burst of writes leaves the full-text index in many segments, each of
	// which a search reads, until the local process merges it (within a minute
	// of the burst): by default the rows below measure the index a user meets
	// after an import, not during its first minute.
	if *searchSettle > 0 {
		time.Sleep(*searchSettle)
		fmt.Printf("waited %s for the search index merge\n", *searchSettle)
	}
	middle := createdAt(base, key, ids[len(ids)/2])
	var hits struct {
		Transcriptions []json.RawMessage `json:"transcriptions"`
	}
	if err := json.Unmarshal(get(base+"/v1/transcriptions?limit=100&q=zebra+printer", key), &hits); err != nil || len(hits.Transcriptions) != min(searchMatches, len(ids)) {
		log.Fatalf("the search case finds %d jobs (%v), want %d", len(hits.Transcriptions), err, searchMatches)
	}

	// The bare handler serves a body like GET job's, with the same headers.
	jobBody := get(base+"/v1/transcriptions/"+ids[0], key)
	bare := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "00000000-0000-0000-0000-000000000000")
		w.Write(jobBody)
	})}
	bareAddr := freeAddr()
	ln, err := net.Listen("tcp", bareAddr)
	if err != nil {
		log.Fatal(err)
	}
	go bare.Serve(ln)
	defer bare.Close()

	type row struct {
		name, url string
		post      string // body for a POST
	}
	list := base + "/v1/transcriptions"
	rows := []row{
		{name: "bare net/http (same body)", url: "http://" + bareAddr + "/"},
		{name: "GET /v1/transcriptions/{id}", url: base + "/v1/transcriptions/" + ids[len(ids)/3]},
		{name: "list, first page", url: list},
		{name: "list status=succeeded", url: list + "?status=succeeded"},
		{name: "list status=failed (none)", url: list + "?status=failed"},
		{name: "list type=summary", url: list + "?type=summary"},
		{name: "list type=tags (none)", url: list + "?type=tags"},
		{name: "list language=fr (none)", url: list + "?language=fr"},
		{name: "list created_after=middle", url: list + "?created_after=" + url.QueryEscape(middle)},
		{name: "list job_id=one", url: list + "?job_id=" + ids[len(ids)/4]},
		{name: "list q=zebra printer (10 jobs)", url: list + "?q=zebra+printer"},
		{name: `list q="zebra printer" (10)`, url: list + "?q=" + url.QueryEscape(`"zebra printer"`)},
		{name: "list q=internet (every job)", url: list + "?q=internet"},
		{name: "POST /v1/summarize (text)", url: base + "/v1/summarize", post: `{"transcript_text":"Agent: thanks for calling. User: I was charged twice and want a refund."}`},
	}
	results := map[string]float64{}
	fmt.Printf("\n%-32s %12s %14s %10s\n", "endpoint", "req/s", "CPU/request", "ratio")
	for i, r := range rows {
		// CPU per request is the serving process's user+system time over the
		// requests wrk completed: unlike req/s it hardly moves when other work
		// shares the machine. The bare handler runs in this process.
		pid := cmd.Process.Pid
		if i == 0 {
			pid = os.Getpid()
		}
		cpuBefore := cpuTime(pid)
		rps, requests := runWrk(r.url, key, r.post, *duration, *conns, dir)
		perRequest := (cpuTime(pid) - cpuBefore) / time.Duration(max(requests, 1))
		results[r.name] = rps
		ref := results[rows[0].name]
		line := fmt.Sprintf("%-32s %12.0f %11.1f µs %9.0f%% of bare", r.name, rps, float64(perRequest)/float64(time.Microsecond), 100*rps/ref)
		if strings.HasPrefix(r.name, "list ") && r.name != "list, first page" {
			line += fmt.Sprintf(", %.0f%% of the first page", 100*rps/results["list, first page"])
		}
		fmt.Println(line)
	}

	if *uploads > 0 {
		before := vmHWM(cmd.Process.Pid)
		uploadMany(base, key, *uploads, *uploadPath == "two-step")
		fmt.Printf("\npeak RSS (whole process, 2 speech decoders): %s before, %s after %d concurrent 10 MiB %s uploads",
			mib(before), mib(vmHWM(cmd.Process.Pid)), *uploads, *uploadPath)
		time.Sleep(*settle) // the workers transcribe the uploaded calls meanwhile
		fmt.Printf(", %s after %s of transcribing them\n", mib(vmHWM(cmd.Process.Pid)), *settle)
	}
}

func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitHealthy(base string) {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	log.Fatal("service did not become healthy")
}

func postJSON(u, bearer, body string) map[string]any {
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode/100 != 2 {
		log.Fatalf("POST %s: %d %v", u, resp.StatusCode, out)
	}
	return out
}

func get(u, key string) []byte {
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		log.Fatalf("GET %s: %d %s", u, resp.StatusCode, b)
	}
	return b
}

func apiKey(base string) string {
	creds := `{"email":"bench@example.com","password":"a-long-bench-password"}`
	postJSON(base+"/dashboard/signup", "", creds)
	token := postJSON(base+"/dashboard/login", "", creds)["token"].(string)
	return postJSON(base+"/dashboard/api-keys", token, `{}`)["api_key"].(string)
}

// searchMatches is how many filled jobs the search case's query matches.
const searchMatches = 10

// fill creates n summary jobs from text, 64 at a time, and returns their ids
// in creation order; searchMatches of them, spread evenly, mention a zebra
// printer.
func fill(base, key string, n int) []string {
	ids := make([]string, n)
	rareEvery := max(1, n/searchMatches)
	var next atomic.Int64
	var wg sync.WaitGroup
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	hc := &http.Client{Transport: tr}
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				body := fmt.Sprintf(`{"transcript_text":"Agent: thank you for calling, this is call %d. User: my internet is down since this morning."}`, i)
				if i%rareEvery == 0 {
					// The search case's 10 jobs: words no other job has.
					body = fmt.Sprintf(`{"transcript_text":"Agent: thank you for calling, this is call %d. User: my zebra printer jammed and my internet is down."}`, i)
				}
				req, _ := http.NewRequest(http.MethodPost, base+"/v1/summarize", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := hc.Do(req)
				if err != nil {
					log.Fatal(err)
				}
				var out map[string]any
				json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if resp.StatusCode != http.StatusAccepted {
					log.Fatalf("create %d: %d %v", i, resp.StatusCode, out)
				}
				ids[i] = out["job_id"].(string)
			}
		}()
	}
	wg.Wait()
	return ids
}

// waitDrained waits until no job of the account is queued or processing.
func waitDrained(base, key string) {
	for {
		pending := 0
		for _, status := range []string{"queued", "processing"} {
			var page struct {
				Transcriptions []json.RawMessage `json:"transcriptions"`
			}
			if err := json.Unmarshal(get(base+"/v1/transcriptions?limit=1&status="+status, key), &page); err != nil {
				log.Fatal(err)
			}
			pending += len(page.Transcriptions)
		}
		if pending == 0 {
			return
		}
		time.Sleep(time.Second)
	}
}

func createdAt(base, key, id string) string {
	var job map[string]any
	json.Unmarshal(get(base+"/v1/transcriptions/"+id, key), &job)
	return job["created_at"].(string)
}

var (
	rpsLine      = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	requestsLine = regexp.MustCompile(`([0-9]+) requests in`)
)

// runWrk returns wrk's requests per second and the number of requests it completed.
func runWrk(u, key, post string, d time.Duration, conns int, dir string) (float64, int64) {
	args := []string{"-t2", "-c" + strconv.Itoa(conns), "-d" + d.String(), "-H", "Authorization: Bearer " + key}
	if post != "" {
		script := filepath.Join(dir, "post.lua")
		lua := fmt.Sprintf("wrk.method = \"POST\"\nwrk.body = %q\nwrk.headers[\"Content-Type\"] = \"application/json\"\n", post)
		os.WriteFile(script, []byte(lua), 0o600)
		args = append(args, "-s", script)
	}
	out, err := exec.Command("wrk", append(args, u)...).CombinedOutput()
	if err != nil {
		log.Fatalf("wrk %s: %v\n%s", u, err, out)
	}
	if strings.Contains(string(out), "Non-2xx") {
		log.Fatalf("wrk %s: non-2xx answers\n%s", u, out)
	}
	m, n := rpsLine.FindSubmatch(out), requestsLine.FindSubmatch(out)
	if m == nil || n == nil {
		log.Fatalf("wrk %s: no Requests/sec or request count in\n%s", u, out)
	}
	f, _ := strconv.ParseFloat(string(m[1]), 64)
	count, _ := strconv.ParseInt(string(n[1]), 10, 64)
	return f, count
}

// cpuTime is the user plus system CPU time a process has used (/proc/PID/stat,
// fields 14 and 15, in clock ticks of 1/100 s on Linux).
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		log.Fatal(err)
	}
	// The command name (field 2) may hold spaces; the fields after it follow ") ".
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// vmHWM is the process's peak resident set size in bytes.
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// uploadMany sends n 10 MiB stereo 8 kHz WAVs at once, each in one request,
// or through the two-step path (POST /v1/transcriptions/uploads, the file to
// the signed address, then the create with upload_id).
func uploadMany(base, key string, n int, twoStep bool) {
	wav := stereoWAV(10<<20 - 44)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("big-%d.wav", i)
			if !twoStep {
				send(base+"/v1/transcriptions", key, nil, name, wav, http.StatusAccepted)
				return
			}
			staged := postJSON(base+"/v1/transcriptions/uploads", key, `{}`)
			var fields [][2]string
			for k, v := range staged["fields"].(map[string]any) {
				fields = append(fields, [2]string{k, v.(string)})
			}
			send(staged["url"].(string), "", fields, name, wav, 0)
			send(base+"/v1/transcriptions", key, [][2]string{{"upload_id", staged["upload_id"].(string)}, {"filename", name}}, "", nil, http.StatusAccepted)
		}()
	}
	wg.Wait()
}

// send POSTs a multipart form, streamed: fields, then the file when name is
// set. It stops the bench unless the answer is want (any 2xx when 0).
func send(url, bearer string, fields [][2]string, name string, file []byte, want int) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		for _, f := range fields {
			mw.WriteField(f[0], f[1])
		}
		if name != "" {
			fw, _ := mw.CreateFormFile("file", name)
			fw.Write(file)
		}
		mw.Close()
		pw.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if (want == 0 && resp.StatusCode/100 != 2) || (want != 0 && resp.StatusCode != want) {
		log.Fatalf("POST %s: %d %s", url, resp.StatusCode, b)
	}
}

// stereoWAV is a 16-bit 8 kHz stereo WAV of dataBytes of a quiet tone.
func stereoWAV(dataBytes int) []byte {
	dataBytes -= dataBytes % 4
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+dataBytes))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(2), uint32(8000), uint32(8000 * 4), uint16(4), uint16(16)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(dataBytes))
	samples := make([]byte, dataBytes)
	for i := 0; i+1 < len(samples); i += 2 {
		v := int16((i / 2 % 40) * 50)
		binary.LittleEndian.PutUint16(samples[i:], uint16(v))
	}
	b.Write(samples)
	return b.Bytes()
}
