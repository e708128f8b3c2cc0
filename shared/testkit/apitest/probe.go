package apitest

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
	"time"
)

// ProbeOptions are RunProbe's: the suite's Options, and which stack the
// target is, for the cases whose answer legitimately differs between them.
type ProbeOptions struct {
	Options
	// AWS is set for the AWS emulation (API Gateway and Lambda in front of
	// the same handlers).
	AWS bool
}

// probeAuth is the credential a probe case sends.
type probeAuth int

const (
	probeAPIKey probeAuth = iota
	probeSession
	probeNone
)

// probeCase is one malformed request and its documented answer. An empty
// code means a success status (the input is odd but valid). aws, when set,
// is the AWS emulation's answer where it differs from the embedded stack's,
// with the reason in the case's name.
type probeCase struct {
	name        string
	method      string
	path        string
	auth        probeAuth
	contentType string
	body        []byte
	status      int
	code        string
	aws         *probeAnswer
}

type probeAnswer struct {
	status int
	code   string
}

// RunProbe sends malformed inputs of every kind the API takes (audio
// headers, multipart shapes, JSON bodies, ids, cursors, query parameters) and
// checks each answer: the documented status and code, the error shape with
// requestId (X-Request-Id equal), and never a 500. Its requests are not
// checked against the OpenAPI document (they break it on purpose); the
// answers are checked by the same rules as every other response.
//
// Every body stays under 4 MiB, the AWS emulation's direct upload size (API
// Gateway takes 6 MB), so size limits answer alike on both stacks; a case
// whose answer differs names the reason and carries the AWS answer.
func RunProbe(t *testing.T, target Target, opts ProbeOptions) {
	opts.defaults()
	c := &client{base: target.BaseURL(), hc: politeClient(opts.HTTPClient), gateway: opts.GatewayKey}
	s := &suite{target: target, opts: opts.Options, c: c}
	a := s.newAccount(t)
	cases := probeCases()
	start := time.Now()
	for _, pc := range cases {
		t.Run(pc.name, func(t *testing.T) {
			var reqOpts []reqOpt
			switch pc.auth {
			case probeAPIKey:
				reqOpts = append(reqOpts, withBearer(a.APIKey))
			case probeSession:
				reqOpts = append(reqOpts, withBearer(a.Token))
			}
			if pc.contentType != "" {
				reqOpts = append(reqOpts, withContentType(pc.contentType))
			}
			r := c.do(t, pc.method, pc.path, pc.body, reqOpts...)
			status, code := pc.status, pc.code
			if opts.AWS && pc.aws != nil {
				status, code = pc.aws.status, pc.aws.code
			}
			if r.Status >= 500 {
				t.Fatalf("%s: a malformed request must never be a server error", r)
			}
			if r.Status != status || r.ErrCode() != code {
				t.Errorf("%s: want %d %q", r, status, code)
			}
		})
	}
	t.Logf("probe: %d cases in %v", len(cases), time.Since(start).Round(time.Millisecond))
}

// ProbeCaseCount is how many cases RunProbe sends.
func ProbeCaseCount() int { return len(probeCases()) }

// formPart is one part of a probe's multipart body; a part with a filename
// is a file part.
type formPart struct {
	name, filename string
	data           []byte
}

func filePart(name string, data []byte) formPart { return formPart{"file", name, data} }

func field(name, value string) formPart { return formPart{name, "", []byte(value)} }

// probeForm is a multipart body of parts in order, with its content type.
func probeForm(parts ...formPart) ([]byte, string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := make(textproto.MIMEHeader)
		if p.filename != "" {
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, p.name, p.filename))
			h.Set("Content-Type", "application/octet-stream")
		} else {
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q`, p.name))
		}
		w, _ := mw.CreatePart(h)
		_, _ = w.Write(p.data)
	}
	_ = mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}

// wavWith is a 0.25 s tone WAV whose header was changed by edit.
func wavWith(edit func(b []byte)) []byte {
	b := MakeWAV(0.25, 1, false)
	edit(b)
	return b
}

func probeCases() []probeCase {
	var cases []probeCase
	add := func(c ...probeCase) { cases = append(cases, c...) }
	good := MakeWAV(0.25, 1, false)
	const create = "/v1/transcriptions"
	upload := func(name string, status int, code string, parts ...formPart) probeCase {
		body, ct := probeForm(parts...)
		return probeCase{name: name, method: http.MethodPost, path: create, contentType: ct, body: body, status: status, code: code}
	}
	audio := func(name string, status int, code string, filename string, data []byte) probeCase {
		return upload("audio/"+name, status, code, filePart(filename, data))
	}

	// Audio headers: the format is read from the content only.
	add(
		audio("empty file", 400, "AUDIO_FILE_MISSING", "call.wav", nil),
		audio("text file named .wav", 415, "UNSUPPORTED_AUDIO_FORMAT", "call.wav", []byte("hello, this is not audio\n")),
		audio("RIFF only", 415, "UNSUPPORTED_AUDIO_FORMAT", "call.wav", []byte("RIFF")),
		audio("truncated RIFF header", 415, "UNSUPPORTED_AUDIO_FORMAT", "call.wav", good[:10]),
		audio("RIFF of another kind", 415, "UNSUPPORTED_AUDIO_FORMAT", "call.wav", append([]byte("RIFF\x24\x00\x00\x00AVI "), good[12:]...)),
		audio("WAVE without fmt", 400, "AUDIO_DURATION_UNKNOWN", "call.wav", good[:12]),
		audio("header only", 400, "AUDIO_DURATION_UNKNOWN", "call.wav", WAVHeaderOnly()),
		audio("no data chunk", 400, "AUDIO_DURATION_UNKNOWN", "call.wav", WAVNoDataChunk()),
		audio("fmt chunk cut short", 400, "AUDIO_DURATION_UNKNOWN", "call.wav", good[:30]),
		audio("fmt chunk size 2", 400, "AUDIO_DURATION_UNKNOWN", "call.wav", wavWith(func(b []byte) { binary.LittleEndian.PutUint32(b[16:], 2) })),
		audio("fmt chunk size huge", 400, "AUDIO_DURATION_UNKNOWN", "call.wav", wavWith(func(b []byte) { binary.LittleEndian.PutUint32(b[16:], 0xFFFFFFF0) })),
		audio("zero channels", 400, "AUDIO_DURATION_UNKNOWN", "call.wav", wavWith(func(b []byte) { binary.LittleEndian.PutUint16(b[22:], 0) })),
		audio("zero sample rate", 400, "AUDIO_DURATION_UNKNOWN", "call.wav", wavWith(func(b []byte) { binary.LittleEndian.PutUint32(b[24:], 0) })),
		audio("absurd sample rate", 400, "AUDIO_DURATION_UNKNOWN", "call.wav", wavWith(func(b []byte) {
			binary.LittleEndian.PutUint32(b[24:], 0xFFFFFFFF)
			binary.LittleEndian.PutUint32(b[28:], 0xFFFFFFFF)
		})),
		// The byte rate is redundant (rate, channels and sample size give it): accepted.
		audio("zero byte rate", 202, "", "call.wav", wavWith(func(b []byte) { binary.LittleEndian.PutUint32(b[28:], 0) })),
		audio("zero bits per sample", 400, "AUDIO_DURATION_UNKNOWN", "call.wav", wavWith(func(b []byte) { binary.LittleEndian.PutUint16(b[34:], 0) })),
		audio("zero block align", 400, "AUDIO_DURATION_UNKNOWN", "call.wav", wavWith(func(b []byte) { binary.LittleEndian.PutUint16(b[32:], 0) })),
		audio("MP3 frame sync then garbage", 415, "UNSUPPORTED_AUDIO_FORMAT", "call.mp3", append([]byte{0xFF, 0xFB, 0x90, 0x64}, bytes.Repeat([]byte{0x13, 0x37}, 500)...)),
		audio("MP3 garbage", 415, "UNSUPPORTED_AUDIO_FORMAT", "call.mp3", bytes.Repeat([]byte{0xFF, 0x00, 0x42}, 700)),
		audio("ID3 tag only", 400, "AUDIO_DURATION_UNKNOWN", "call.mp3", id3Tag(64)),
		audio("ID3 tag claiming more than the file", 400, "AUDIO_DURATION_UNKNOWN", "call.mp3", append(id3Tag(1<<20), make([]byte, 190)...)),
		audio("Ogg named .wav", 415, "UNSUPPORTED_AUDIO_FORMAT", "call.wav", append([]byte("OggS\x00\x02"), make([]byte, 200)...)),
		audio("zero bytes", 415, "UNSUPPORTED_AUDIO_FORMAT", "call.wav", make([]byte, 1000)),
		audio("one byte", 415, "UNSUPPORTED_AUDIO_FORMAT", "call.wav", []byte{0x52}),
	)

	// Multipart shapes.
	withBody := func(name, contentType string, body []byte, status int, code string) probeCase {
		return probeCase{name: "multipart/" + name, method: http.MethodPost, path: create, contentType: contentType, body: body, status: status, code: code}
	}
	okBody, okType := probeForm(filePart("call.wav", good))
	boundary := okType[strings.Index(okType, "boundary=")+len("boundary="):]
	manyParts := make([]formPart, 0, 2001)
	for i := range 2000 {
		manyParts = append(manyParts, field(fmt.Sprintf("extra%d", i), "x"))
	}
	add(
		withBody("no content type", "", okBody, 400, "AUDIO_FILE_MISSING"),
		withBody("JSON content type", "application/json", []byte(`{"file":"call.wav"}`), 400, "AUDIO_FILE_MISSING"),
		withBody("form-urlencoded", "application/x-www-form-urlencoded", []byte("file=call.wav"), 400, "AUDIO_FILE_MISSING"),
		withBody("no boundary", "multipart/form-data", okBody, 400, "AUDIO_FILE_MISSING"),
		withBody("unparsable content type", "multipart/form-data; boundary=", okBody, 400, "AUDIO_FILE_MISSING"),
		withBody("wrong boundary", "multipart/form-data; boundary=nothere", okBody, 400, "INVALID_REQUEST"),
		withBody("empty body", okType, nil, 400, "INVALID_REQUEST"),
		withBody("cut short", okType, okBody[:len(okBody)/2], 400, "INVALID_REQUEST"),
		withBody("no closing boundary", okType, okBody[:len(okBody)-len(boundary)-6], 400, "INVALID_REQUEST"),
		withBody("closing boundary only", okType, []byte("--"+boundary+"--\r\n"), 400, "AUDIO_FILE_MISSING"),
		withBody("multipart/mixed", strings.Replace(okType, "form-data", "mixed", 1), okBody, 400, "AUDIO_FILE_MISSING"),
		upload("multipart/no file part", 400, "AUDIO_FILE_MISSING", field("language", "en")),
		// The part's name makes it the file, with or without a filename.
		upload("multipart/file as a plain field", 415, "UNSUPPORTED_AUDIO_FORMAT", field("file", "call.wav")),
		upload("multipart/two file parts", 400, "MULTIPLE_AUDIO_SOURCES", filePart("a.wav", good), filePart("b.wav", good)),
		upload("multipart/file and upload_id", 400, "MULTIPLE_AUDIO_SOURCES", filePart("a.wav", good), field("upload_id", newUUID())),
		upload("multipart/upload_id and file", 400, "MULTIPLE_AUDIO_SOURCES", field("upload_id", newUUID()), filePart("a.wav", good)),
		upload("multipart/unknown upload_id", 400, "UPLOAD_NOT_FOUND", field("upload_id", newUUID())),
		upload("multipart/upload_id not a UUID", 400, "UPLOAD_NOT_FOUND", field("upload_id", "../../audio/x")),
		upload("multipart/upload_id too long", 413, "REQUEST_TOO_LARGE", field("upload_id", strings.Repeat("u", 200))),
		upload("multipart/huge field name", 400, "AUDIO_FILE_MISSING", field(strings.Repeat("n", 8<<10), "x")),
		upload("multipart/many parts", 400, "AUDIO_FILE_MISSING", manyParts...),
		upload("multipart/unknown fields past their allowance", 413, "REQUEST_TOO_LARGE", filePart("a.wav", good), field("notes", strings.Repeat("x", 1<<20))),
		upload("multipart/language not a tag", 400, "INVALID_REQUEST", filePart("a.wav", good), field("language", "english please")),
		upload("multipart/language too long", 413, "REQUEST_TOO_LARGE", filePart("a.wav", good), field("language", strings.Repeat("e", 65))),
		upload("multipart/language not UTF-8", 400, "INVALID_REQUEST", filePart("a.wav", good), field("language", "\xff\xfe")),
		upload("multipart/filename field too long", 413, "REQUEST_TOO_LARGE", field("filename", strings.Repeat("f", 2000)), field("upload_id", newUUID())),
		upload("multipart/keyterms not an array", 400, "INVALID_KEYTERMS", filePart("a.wav", good), field("keyterms", `{"a":1}`)),
		upload("multipart/keyterms wrong types", 400, "INVALID_KEYTERMS", filePart("a.wav", good), field("keyterms", `[1,2]`)),
		upload("multipart/redact_pii not true or false", 400, "INVALID_REDACT_PII", filePart("a.wav", good), field("redact_pii", "yes")),
		upload("multipart/redact_pii longer than any value", 400, "INVALID_REDACT_PII", filePart("a.wav", good), field("redact_pii", strings.Repeat("t", 100))),
	)

	// Metadata: a JSON object within its bounds.
	meta := func(name, value string, status int, code string) probeCase {
		return upload("metadata/"+name, status, code, filePart("a.wav", good), field("metadata", value))
	}
	manyKeys := "{" + strings.TrimSuffix(strings.Repeat(`"k":1,`, 600), ",") + "}"
	add(
		meta("not JSON", "{nope", 400, "INVALID_METADATA_JSON"),
		meta("array", "[1,2]", 400, "INVALID_METADATA_JSON"),
		meta("string", `"crm"`, 400, "INVALID_METADATA_JSON"),
		meta("number", "42", 400, "INVALID_METADATA_JSON"),
		meta("null", "null", 400, "INVALID_METADATA_JSON"),
		meta("trailing garbage", `{"a":1} trailing`, 400, "INVALID_METADATA_JSON"),
		meta("two objects", `{"a":1}{"b":2}`, 400, "INVALID_METADATA_JSON"),
		meta("deep nesting", strings.Repeat(`{"a":`, 10000)+"1"+strings.Repeat("}", 10000), 400, "INVALID_METADATA_JSON"),
		meta("33 levels", strings.Repeat(`{"a":`, 32)+"{}"+strings.Repeat("}", 32), 400, "INVALID_METADATA_JSON"),
		meta("deep arrays", `{"a":`+strings.Repeat("[", 100)+strings.Repeat("]", 100)+"}", 400, "INVALID_METADATA_JSON"),
		meta("600 keys", manyKeys, 400, "INVALID_METADATA_JSON"),
		meta("over 64 KiB", `{"a":"`+strings.Repeat("x", 64<<10)+`"}`, 400, "INVALID_METADATA_JSON"),
		meta("not UTF-8", "{\"a\":\"\xff\"}", 400, "INVALID_REQUEST"),
		meta("far over its limit", `{"a":"`+strings.Repeat("x", 1<<20)+`"}`, 400, "INVALID_METADATA_JSON"),
	)

	// JSON bodies of summarize and tag.
	for _, route := range []string{"/v1/summarize", "/v1/tag"} {
		j := func(name, body string, status int, code string) probeCase {
			return probeCase{name: "json" + route + "/" + name, method: http.MethodPost, path: route, contentType: "application/json", body: []byte(body), status: status, code: code}
		}
		add(
			j("empty body", "", 400, "INVALID_JSON_BODY"),
			j("not JSON", "transcript_text=hi", 400, "INVALID_JSON_BODY"),
			j("array", `[{"transcript_text":"hi"}]`, 400, "INVALID_JSON_BODY"),
			j("unterminated", `{"transcript_text":"hi"`, 400, "INVALID_JSON_BODY"),
			j("trailing garbage", `{"transcript_text":"Agent: hello"} garbage`, 400, "INVALID_JSON_BODY"),
			j("wrong type", `{"transcript_text":42}`, 400, "INVALID_JSON_BODY"),
			j("job id wrong type", `{"transcription_job_id":["x"]}`, 400, "INVALID_JSON_BODY"),
			j("neither source", `{}`, 400, "MISSING_TRANSCRIPT_SOURCE"),
			j("both sources", `{"transcription_job_id":"`+newUUID()+`","transcript_text":"Agent: hello"}`, 400, "MULTIPLE_TRANSCRIPT_SOURCES"),
			j("unknown job", `{"transcription_job_id":"`+newUUID()+`"}`, 404, "JOB_NOT_FOUND"),
			j("job id not a UUID", `{"transcription_job_id":"../etc/passwd"}`, 404, "JOB_NOT_FOUND"),
			j("deep nesting", `{"x":`+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+`}`, 400, "INVALID_JSON_BODY"),
			j("huge string", `{"transcript_text":"`+strings.Repeat("a", 3<<20)+`"}`, 413, "REQUEST_TOO_LARGE"),
		)
	}
	add(probeCase{name: "json/tag with a callback and no URL", method: http.MethodPost, path: "/v1/tag", contentType: "application/json",
		body: []byte(`{"transcript_text":"Agent: hello","callback_apikey":"k"}`), status: 400, code: "INVALID_CALLBACK"})
	add(probeCase{name: "json/tag with a file callback", method: http.MethodPost, path: "/v1/tag", contentType: "application/json",
		body: []byte(`{"transcript_text":"Agent: hello","callback_url":"file:///etc/passwd"}`), status: 400, code: "INVALID_CALLBACK"})

	// Job ids in the path.
	get := func(name, path string, status int, code string) probeCase {
		return probeCase{name: "id/" + name, method: http.MethodGet, path: path, status: status, code: code}
	}
	add(
		get("not a UUID", "/v1/transcriptions/not-a-uuid", 404, "JOB_NOT_FOUND"),
		get("unknown UUID", "/v1/transcriptions/"+newUUID(), 404, "JOB_NOT_FOUND"),
		get("UUID in capitals", "/v1/transcriptions/"+strings.ToUpper(newUUID()), 404, "JOB_NOT_FOUND"),
		get("unicode", "/v1/transcriptions/%E2%98%83", 404, "JOB_NOT_FOUND"),
		get("NUL byte", "/v1/transcriptions/a%00b", 404, "JOB_NOT_FOUND"),
		get("encoded traversal", "/v1/transcriptions/..%2F..%2Fusage", 404, "JOB_NOT_FOUND"),
		get("very long", "/v1/transcriptions/"+strings.Repeat("a", 4000), 404, "JOB_NOT_FOUND"),
		get("empty", "/v1/transcriptions/", 400, "MISSING_JOB_ID"),
		get("empty before export", "/v1/transcriptions//export?format=txt", 400, "MISSING_JOB_ID"),
		get("dot segment", "/v1/transcriptions/./usage", 404, "NOT_FOUND"),
		get("traversal", "/v1/transcriptions/x/../usage", 404, "NOT_FOUND"),
		get("double slash before the id", "/v1//transcriptions/"+newUUID(), 404, "NOT_FOUND"),
		get("export of an unknown job", "/v1/transcriptions/"+newUUID()+"/export?format=txt", 404, "JOB_NOT_FOUND"),
		get("export without format", "/v1/transcriptions/"+newUUID()+"/export", 400, "INVALID_FORMAT"),
		get("export in a bogus format", "/v1/transcriptions/"+newUUID()+"/export?format=docx", 400, "INVALID_FORMAT"),
		probeCase{name: "id/delete empty", method: http.MethodDelete, path: "/v1/transcriptions/", status: 400, code: "MISSING_JOB_ID"},
		probeCase{name: "id/delete not a UUID", method: http.MethodDelete, path: "/v1/transcriptions/nope", status: 404, code: "JOB_NOT_FOUND"},
		// On AWS an empty {job_id} matches no route: the request reaches the
		// $default route, which API Gateway's JWT authorizer does not guard,
		// so no session claims come with it and the fallback answers 401.
		probeCase{name: "id/dashboard audio empty (AWS: $default has no authorizer)", method: http.MethodGet, path: "/dashboard/jobs//audio", auth: probeSession, status: 400, code: "MISSING_JOB_ID",
			aws: &probeAnswer{401, "UNAUTHORIZED"}},
		probeCase{name: "id/dashboard export empty (AWS: $default has no authorizer)", method: http.MethodGet, path: "/dashboard/jobs//export?format=txt", auth: probeSession, status: 400, code: "MISSING_JOB_ID",
			aws: &probeAnswer{401, "UNAUTHORIZED"}},
		probeCase{name: "id/dashboard job not a UUID", method: http.MethodGet, path: "/dashboard/jobs/%E2%98%83", auth: probeSession, status: 404, code: "JOB_NOT_FOUND"},
		probeCase{name: "id/revoke key empty", method: http.MethodDelete, path: "/dashboard/api-keys//", auth: probeSession, status: 404, code: "NOT_FOUND"},
	)

	// Listing: cursors and query parameters.
	list := func(name, query string, status int, code string) probeCase {
		return probeCase{name: "list/" + name, method: http.MethodGet, path: "/v1/transcriptions?" + query, status: status, code: code}
	}
	add(
		list("cursor garbage", "cursor=garbage", 400, "INVALID_PAGINATION"),
		list("cursor base64 of garbage", "cursor="+base64.RawURLEncoding.EncodeToString([]byte(`{"v":1,"a":"x","t":1,"i":"y"}`)), 400, "INVALID_PAGINATION"),
		list("cursor base64 with a dot", "cursor="+base64.RawURLEncoding.EncodeToString([]byte("payload"))+"."+base64.RawURLEncoding.EncodeToString([]byte("sig")), 400, "INVALID_PAGINATION"),
		list("cursor unicode", "cursor=%E2%98%83", 400, "INVALID_PAGINATION"),
		list("cursor over 512 characters", "cursor="+strings.Repeat("A", 513), 400, "INVALID_PAGINATION"),
		list("cursor of 10 KB", "cursor="+strings.Repeat("A", 10<<10), 400, "INVALID_PAGINATION"),
		// Past the request head's 64 KiB: the listening server's 431, in the
		// error shape (both stacks listen with httpapi.NewHTTPServer; real API
		// Gateway refuses a head over 10 KB itself).
		list("cursor of 100 KB", "cursor="+strings.Repeat("A", 100<<10), 431, "REQUEST_HEADERS_TOO_LARGE"),
		list("limit 0", "limit=0", 400, "INVALID_PAGINATION"),
		list("limit -1", "limit=-1", 400, "INVALID_PAGINATION"),
		list("limit abc", "limit=abc", 400, "INVALID_PAGINATION"),
		list("limit 1e9", "limit=1e9", 400, "INVALID_PAGINATION"),
		list("limit +5", "limit=%2B5", 400, "INVALID_PAGINATION"),
		list("limit 1.5", "limit=1.5", 400, "INVALID_PAGINATION"),
		list("limit 101 is capped", "limit=101", 200, ""),
		list("limit past int64 is capped", "limit=99999999999999999999999", 200, ""),
		list("limit empty counts as absent", "limit=", 200, ""),
		list("status bogus", "status=done", 400, "INVALID_FILTER"),
		list("status in capitals", "status=QUEUED", 400, "INVALID_FILTER"),
		list("type bogus", "type=podcast", 400, "INVALID_FILTER"),
		list("created_after bogus", "created_after=yesterday", 400, "INVALID_FILTER"),
		list("created_after month 13", "created_after=2026-13-01", 400, "INVALID_FILTER"),
		list("job_id not a UUID", "job_id=nope", 400, "INVALID_FILTER"),
		list("repeated limit, first valid", "limit=5&limit=abc", 200, ""),
		list("repeated status, first bogus", "status=bogus&status=queued", 400, "INVALID_FILTER"),
		list("unknown parameter", "colour=blue", 200, ""),
		probeCase{name: "list/dashboard cursor garbage", method: http.MethodGet, path: "/dashboard/jobs?cursor=garbage", auth: probeSession, status: 400, code: "INVALID_PAGINATION"},
		probeCase{name: "list/dashboard limit abc", method: http.MethodGet, path: "/dashboard/jobs?limit=abc", auth: probeSession, status: 400, code: "INVALID_PAGINATION"},
	)

	// Credentials and methods.
	add(
		probeCase{name: "auth/no credentials", method: http.MethodGet, path: "/v1/transcriptions", auth: probeNone, status: 401, code: "UNAUTHORIZED"},
		probeCase{name: "auth/session on an API-key route", method: http.MethodGet, path: "/v1/transcriptions", auth: probeSession, status: 401, code: "UNAUTHORIZED"},
		probeCase{name: "auth/API key on a session route", method: http.MethodGet, path: "/dashboard/jobs", status: 401, code: "UNAUTHORIZED"},
		probeCase{name: "method/PUT the collection", method: http.MethodPut, path: "/v1/transcriptions", status: 405, code: "METHOD_NOT_ALLOWED"},
		probeCase{name: "method/PATCH a job", method: http.MethodPatch, path: "/v1/transcriptions/" + newUUID(), status: 405, code: "METHOD_NOT_ALLOWED"},
		probeCase{name: "method/unknown route", method: http.MethodGet, path: "/v2/transcriptions", status: 404, code: "NOT_FOUND"},
		probeCase{name: "method/double slash root", method: http.MethodGet, path: "//healthz", status: 404, code: "NOT_FOUND"},
		probeCase{name: "json/signup not JSON", method: http.MethodPost, path: "/dashboard/signup", auth: probeNone, contentType: "application/json", body: []byte("email=a"), status: 400, code: "INVALID_JSON_BODY"},
	)
	return cases
}

// id3Tag is an ID3v2.4 header announcing size bytes of tag, followed by
// padding up to that size when it is small.
func id3Tag(size int) []byte {
	b := []byte{'I', 'D', '3', 4, 0, 0, byte(size >> 21 & 0x7F), byte(size >> 14 & 0x7F), byte(size >> 7 & 0x7F), byte(size & 0x7F)}
	if size <= 4096 {
		b = append(b, make([]byte, size)...)
	}
	return b
}
