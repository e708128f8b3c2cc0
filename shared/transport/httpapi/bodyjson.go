package httpapi

import (
	"bytes"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// The two hottest bodies, the Job resource (GET job) and a list page, are
// written by hand-written appenders instead of encoding/json. Under wrk the
// reflective encoder was a tenth of a GET's CPU, most of it re-validating and
// compacting the stored result (json.RawMessage output is always compacted),
// which the store holds compact already: the worker wrote it with
// json.Marshal, and metadata is compacted when it is accepted
// (jobs.parseMetadata). The appenders produce the bytes encoding/json
// produces for the same struct with SetEscapeHTML(false) (field order,
// omitempty, string escaping, float format and the trailing newline);
// TestBodyAppendersMatchEncodingJSON and FuzzBodyAppenders hold them to it.
// Rare parts (a failed job's error) still go through encoding/json.

// jsonAppender is a body that writes itself; encodeBody prefers it.
type jsonAppender interface {
	appendJSON(dst []byte) ([]byte, error)
}

// appendJobHead opens both job bodies, which start with the same three
// fields.
func appendJobHead(dst []byte, id string, jobType callscribe.JobType, status callscribe.JobStatus) []byte {
	dst = append(dst, `{"job_id":`...)
	dst = appendJSONString(dst, id)
	dst = append(dst, `,"type":`...)
	dst = appendJSONString(dst, string(jobType))
	dst = append(dst, `,"status":`...)
	return appendJSONString(dst, string(status))
}

// appendTimes writes the created_at and updated_at pair both job bodies have.
func appendTimes(dst []byte, created, updated apiTime) []byte {
	dst = append(dst, `,"created_at":"`...)
	dst = appendTime(dst, time.Time(created))
	dst = append(dst, `","updated_at":"`...)
	dst = appendTime(dst, time.Time(updated))
	return append(dst, '"')
}

func (b *jobResource) appendJSON(dst []byte) ([]byte, error) {
	dst = appendJobHead(dst, b.JobID, b.Type, b.Status)
	if b.SourceJobID != "" {
		dst = append(dst, `,"source_job_id":`...)
		dst = appendJSONString(dst, b.SourceJobID)
	}
	dst = appendTimes(dst, b.CreatedAt, b.UpdatedAt)
	if len(b.Result) > 0 {
		dst = append(dst, `,"result":`...)
		dst = appendRawJSON(dst, b.Result)
	}
	if b.Error != nil {
		var e bytes.Buffer
		if err := bodyEncoder(&e).Encode(b.Error); err != nil {
			return dst, err
		}
		dst = append(dst, `,"error":`...)
		dst = append(dst, bytes.TrimSuffix(e.Bytes(), []byte("\n"))...)
	}
	if len(b.Metadata) > 0 {
		dst = append(dst, `,"metadata":`...)
		dst = appendRawJSON(dst, b.Metadata)
	}
	if len(b.Keyterms) > 0 {
		dst = append(dst, `,"keyterms":[`...)
		for i, term := range b.Keyterms {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, term)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"requestId":`...)
	dst = appendJSONString(dst, b.RequestID)
	return append(dst, "}\n"...), nil
}

func (b *jobListPage) appendJSON(dst []byte) ([]byte, error) {
	if b.Transcriptions == nil {
		dst = append(dst, `{"transcriptions":null`...)
	} else {
		dst = append(dst, `{"transcriptions":[`...)
		for i := range b.Transcriptions {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = b.Transcriptions[i].appendJSON(dst); err != nil {
				return dst, err
			}
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"next_cursor":`...)
	dst = appendOptionalString(dst, b.NextCursor)
	dst = append(dst, `,"requestId":`...)
	dst = appendJSONString(dst, b.RequestID)
	return append(dst, "}\n"...), nil
}

func (j *jobSummaryResource) appendJSON(dst []byte) ([]byte, error) {
	dst = appendJobHead(dst, j.JobID, j.Type, j.Status)
	if j.SourceJobID != "" {
		dst = append(dst, `,"source_job_id":`...)
		dst = appendJSONString(dst, j.SourceJobID)
	}
	dst = append(dst, `,"original_filename":`...)
	dst = appendOptionalString(dst, j.OriginalFilename)
	dst = append(dst, `,"language":`...)
	dst = appendOptionalString(dst, j.Language)
	dst = append(dst, `,"audio_seconds":`...)
	dst = appendJSONFloat(dst, j.AudioSeconds)
	dst = appendTimes(dst, j.CreatedAt, j.UpdatedAt)
	if len(j.Matches) > 0 {
		// Only search pages carry matches: encoding/json writes them.
		var m bytes.Buffer
		if err := bodyEncoder(&m).Encode(j.Matches); err != nil {
			return dst, err
		}
		dst = append(dst, `,"matches":`...)
		dst = append(dst, bytes.TrimSuffix(m.Bytes(), []byte("\n"))...)
	}
	return append(dst, '}'), nil
}

func appendOptionalString(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return appendJSONString(dst, *s)
}

// appendRawJSON appends a stored JSON value as it is, without the scan
// encoding/json would make: the stores hold only values that were encoded by
// json.Marshal or validated on the way in (jobs.parseMetadata), so it is
// valid JSON, and compact unless it is metadata stored before uploads were
// compacted (whitespace, still valid).
func appendRawJSON(dst, raw []byte) []byte {
	return append(dst, raw...)
}

// appendJSONFloat formats like encoding/json: ES6 number-to-string, so 'e'
// notation only below 1e-6 and from 1e21, with the exponent unpadded.
// Infinities and NaN, which encoding/json refuses, are sent as 0 (an audio
// duration is never either).
func appendJSONFloat(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(dst, '0')
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does without HTML escaping:
// quote and backslash escaped, control characters as \b \f \n \r \t or
// \u00XX, invalid UTF-8 as \ufffd, and U+2028 and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
