package s3

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/testkit/awstest"
	"github.com/callscribe/callscribe/shared/testkit/storetest"
)

var (
	servers *awstest.Servers
	client  *awss3.Client
	bucketN atomic.Int64
)

func TestMain(m *testing.M) {
	awstest.RunMain(m, awstest.Options{S3: true}, func(s *awstest.Servers) {
		servers = s
		client = awss3.NewFromConfig(s.S3Config(), func(o *awss3.Options) { o.UsePathStyle = true })
	})
}

func newStore(t *testing.T) *AudioStore {
	t.Helper()
	bucket := fmt.Sprintf("audio-%d", bucketN.Add(1))
	if err := CreateBucket(t.Context(), client, bucket); err != nil {
		t.Fatal(err)
	}
	if err := CreateBucket(t.Context(), client, bucket); err != nil {
		t.Fatalf("CreateBucket twice: %v", err)
	}
	return NewAudioStore(client, bucket)
}

func TestAudioStoreContract(t *testing.T) {
	storetest.RunAudioStoreTests(t, func(t *testing.T) callscribe.AudioStore { return newStore(t) })
}

// S3-only promises beyond the contract: objects are stored with SSE-S3, and
// StatAudio sees the stored size (the two-step path checks it).
func TestObjectsAreEncryptedAndStatted(t *testing.T) {
	s := newStore(t)
	data := bytes.Repeat([]byte("RIFF audio bytes "), 1000)
	if err := s.PutAudio(t.Context(), "jobs/a.wav", bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	if size, err := s.StatAudio(t.Context(), "jobs/a.wav"); err != nil || size != int64(len(data)) {
		t.Fatalf("StatAudio = %d, %v; want %d", size, err, len(data))
	}
	head, err := client.HeadObject(t.Context(), &awss3.HeadObjectInput{Bucket: aws.String(s.Bucket()), Key: aws.String("jobs/a.wav")})
	if err != nil {
		t.Fatal(err)
	}
	if head.ServerSideEncryption != "AES256" {
		t.Errorf("HEAD reports server-side encryption %q, want AES256", head.ServerSideEncryption)
	}
	if _, err := s.StatAudio(t.Context(), "never/stored.mp3"); !callscribe.IsCode(err, callscribe.CodeNotFound) {
		t.Fatalf("StatAudio(missing) = %v, want NOT_FOUND", err)
	}
}

// TestPresignUpload posts a file with the presigned form, as a browser or the
// two-step client would, and checks the policy carries the size limit.
func TestPresignUpload(t *testing.T) {
	s := newStore(t)
	const maxBytes = 10 << 20
	url, fields, err := s.PresignUpload(t.Context(), "uploads/u1", maxBytes, 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(url, servers.S3Endpoint) || fields["key"] != "uploads/u1" {
		t.Fatalf("presigned POST url %q key %q", url, fields["key"])
	}
	// Form field names are case-insensitive; the SDK writes X-Amz-Signature etc.
	lower := map[string]string{}
	for k, v := range fields {
		lower[strings.ToLower(k)] = v
	}
	for _, f := range []string{"policy", "x-amz-signature", "x-amz-credential", "x-amz-algorithm", "x-amz-date", "x-amz-server-side-encryption"} {
		if lower[f] == "" {
			t.Errorf("presigned POST lacks field %s (fields %v)", f, fields)
		}
	}
	policyJSON, err := base64.StdEncoding.DecodeString(fields["policy"])
	if err != nil {
		t.Fatal(err)
	}
	var policy struct {
		Expiration string `json:"expiration"`
		Conditions []any  `json:"conditions"`
	}
	if err := json.Unmarshal(policyJSON, &policy); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(policyJSON), fmt.Sprintf(`["content-length-range",0,%d]`, maxBytes)) {
		t.Fatalf("policy has no content-length-range 0..%d: %s", maxBytes, policyJSON)
	}
	exp, err := time.Parse(time.RFC3339, policy.Expiration)
	if err != nil || time.Until(exp) > 6*time.Minute || time.Until(exp) < 4*time.Minute {
		t.Fatalf("policy expiration %q, want about 5 minutes from now", policy.Expiration)
	}

	data := []byte("ID3 pretend mp3")
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range fields {
		w.WriteField(k, v)
	}
	fw, _ := w.CreateFormFile("file", "call.mp3")
	fw.Write(data)
	w.Close()
	resp, err := http.Post(url, w.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST upload: %s %s", resp.Status, msg)
	}
	if size, err := s.StatAudio(t.Context(), "uploads/u1"); err != nil || size != int64(len(data)) {
		t.Fatalf("StatAudio after POST upload = %d, %v; want %d", size, err, len(data))
	}
}
