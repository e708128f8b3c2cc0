package client_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/client"
	"github.com/callscribe/callscribe/shared/transport/httpapi"
)

// clientCodes are the client's Code constants.
var clientCodes = []string{
	client.CodeAudioFileMissing, client.CodeAudioDurationUnknown, client.CodeInvalidMetadataJSON,
	client.CodeInvalidPagination, client.CodeInvalidFilter, client.CodeMissingJobID, client.CodeInvalidJSONBody,
	client.CodeMissingTranscriptSource, client.CodeMultipleTranscriptSources, client.CodeNotATranscription,
	client.CodeForbidden, client.CodeJobNotFound, client.CodeTranscriptionNotReady, client.CodeFileTooLarge,
	client.CodeUnsupportedAudioFormat, client.CodeTranscriptEmpty, client.CodeQuotaExceeded,
	client.CodeProviderSubmitFailed, client.CodeUnauthorized, client.CodeInternal, client.CodeNotFound,
	client.CodeMethodNotAllowed, client.CodeEmailTaken, client.CodeInvalidSignup, client.CodeInvalidCallback,
	client.CodeInvalidRequest, client.CodeUploadNotFound, client.CodeRequestTooLarge, client.CodeInvalidFormat,
	client.CodeInvalidKeyterms, client.CodeRateLimited,
}

// The client has a constant for every code the service can answer with (the
// Code constants of package callscribe, but for the one that never leaves the
// process), and no other.
func TestCodesMatchTheService(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(pkgDir, "..", "callscribe", "errors.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	service := map[string]bool{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Code") || name.Name == "CodeConflict" || i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
					v, _ := strconv.Unquote(lit.Value)
					service[v] = true
				}
			}
		}
	}
	mine := map[string]bool{}
	for _, c := range clientCodes {
		mine[c] = true
		if st := httpapi.HTTPStatus(c); st == http.StatusInternalServerError && c != client.CodeInternal {
			t.Errorf("%s has no status in the service", c)
		}
	}
	if a, b := slices.Sorted(maps.Keys(service)), slices.Sorted(maps.Keys(mine)); !slices.Equal(a, b) {
		t.Errorf("service codes %v\nclient codes  %v", a, b)
	}
}

func TestLimitsAndHealth(t *testing.T) {
	c, _ := client.New(baseURL)
	if err := c.Health(t.Context()); err != nil {
		t.Fatal(err)
	}
	email := newEmail()
	if err := c.Signup(t.Context(), email, testPassword); err != nil {
		t.Fatal(err)
	}
	s, err := c.Login(t.Context(), email, testPassword)
	if err != nil {
		t.Fatal(err)
	}
	l, err := c.With(client.WithSessionToken(s.Token)).Limits(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if l.MaxAudioBytes != client.MaxFileBytes || l.DirectUploadMaxBytes <= 0 || l.MaxPageSize != 100 || !slices.Contains(l.AudioFormats, "wav") {
		t.Errorf("limits %+v", l)
	}
	// The create answers carry the type on every path.
	api := account(t)
	created, err := api.CreateTranscriptionFromFile(t.Context(), "call.wav", client.TranscriptionOptions{})
	if err != nil || created.Type != client.TypeTranscription {
		t.Errorf("created %+v, %v", created, err)
	}
}
