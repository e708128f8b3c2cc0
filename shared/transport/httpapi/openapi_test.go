package httpapi

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/transport/openapi"
)

// routeConstants reads every Route constant declared in server.go, so a route
// added there is checked against the document without editing this test.
func routeConstants(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "server.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Route" {
				continue
			}
			for i, name := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok {
					t.Fatalf("%s is not a string literal", name.Name)
				}
				v, _ := strconv.Unquote(lit.Value)
				out[v] = name.Name
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("found only %d Route constants in server.go", len(out))
	}
	return out
}

type docOperation struct {
	Responses map[string]json.RawMessage `json:"responses"`
}

func openAPIDoc(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(openapi.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestOpenAPIDocumentHasEveryRoute: every Route constant is an operation of the
// document with the same method and path, and every operation is a Route.
func TestOpenAPIDocumentHasEveryRoute(t *testing.T) {
	routes := routeConstants(t)
	doc := openAPIDoc(t)
	documented := map[string]bool{}
	for path, item := range doc["paths"].(map[string]any) {
		for method := range item.(map[string]any) {
			switch method {
			case "get", "put", "post", "delete", "patch", "head", "options", "trace":
				documented[strings.ToUpper(method)+" "+path] = true
			}
		}
	}
	for r, name := range routes {
		if !documented[r] {
			t.Errorf("%s (%s) is not in the OpenAPI document", name, r)
		}
	}
	for op := range documented {
		if _, ok := routes[op]; !ok {
			t.Errorf("the OpenAPI document has %s, which is no Route of the server", op)
		}
	}
	// The server registers exactly these routes (New with none given serves all).
	s := New(Deps{}, Config{})
	for r := range routes {
		method, path, _ := strings.Cut(r, " ")
		path = strings.NewReplacer("{job_id}", "00000000-0000-4000-8000-000000000000", "{key_id}", "k").Replace(path)
		if _, pattern := s.mux.Handler(httptest.NewRequest(method, path, nil)); pattern != r {
			t.Errorf("%s: the server's mux matches %q", r, pattern)
		}
	}
}

// TestOpenAPIErrorCodes: the document's ErrorCode enum is exactly the codes of
// the status table, and each operation lists a code only under its status.
func TestOpenAPIErrorCodes(t *testing.T) {
	doc := openAPIDoc(t)
	comps := doc["components"].(map[string]any)
	schemas := comps["schemas"].(map[string]any)
	var enum []string
	for _, c := range schemas["ErrorCode"].(map[string]any)["enum"].([]any) {
		enum = append(enum, c.(string))
	}
	var table []string
	for c := range statusOf {
		table = append(table, c)
	}
	sort.Strings(enum)
	sort.Strings(table)
	if !slices.Equal(enum, table) {
		t.Errorf("ErrorCode enum %v\nstatus table   %v", enum, table)
	}
	responses := comps["responses"].(map[string]any)
	resolve := func(v any) map[string]any {
		m := v.(map[string]any)
		if ref, ok := m["$ref"].(string); ok {
			return responses[strings.TrimPrefix(ref, "#/components/responses/")].(map[string]any)
		}
		return m
	}
	checked := 0
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			opm, ok := op.(map[string]any)
			if !ok || method == "parameters" {
				continue
			}
			for status, resp := range opm["responses"].(map[string]any) {
				st, _ := strconv.Atoi(status)
				codes := errorCodes(resolve(resp), schemas)
				if st >= 400 && len(codes) == 0 {
					t.Errorf("%s %s %s: no error codes", method, path, status)
				}
				for _, c := range codes {
					checked++
					if HTTPStatus(c) != st {
						t.Errorf("%s %s: code %s listed under %d, the server answers it with %d", method, path, c, st, HTTPStatus(c))
					}
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d codes checked", checked)
	}
}

// errorCodes returns the codes an error response lists (allOf: [Error, {error.code enum}]).
func errorCodes(resp map[string]any, schemas map[string]any) []string {
	content, _ := resp["content"].(map[string]any)
	media, _ := content["application/json"].(map[string]any)
	schema, _ := media["schema"].(map[string]any)
	if ref, ok := schema["$ref"].(string); ok {
		schema, _ = schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
	}
	var out []string
	allOf, _ := schema["allOf"].([]any)
	for _, part := range allOf {
		p := part.(map[string]any)
		props, _ := p["properties"].(map[string]any)
		e, _ := props["error"].(map[string]any)
		ep, _ := e["properties"].(map[string]any)
		code, _ := ep["code"].(map[string]any)
		enum, _ := code["enum"].([]any)
		for _, c := range enum {
			out = append(out, c.(string))
		}
	}
	return out
}

// TestOpenAPIServedWithoutCredentials: GET /openapi.json is the embedded
// document, JSON, with no API key, session or gateway key.
func TestOpenAPIServedWithoutCredentials(t *testing.T) {
	s := New(Deps{}, Config{GatewayKey: "gw"})
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" || rec.Header().Get("X-Request-Id") == "" {
		t.Fatalf("%d %v", rec.Code, rec.Header())
	}
	if !bytes.Equal(rec.Body.Bytes(), openapi.Document()) {
		t.Errorf("served bytes differ from the embedded document")
	}
	// Other routes still need the gateway key.
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/dashboard/config", nil))
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("/dashboard/config without the gateway key: %d", rec.Code)
	}
}
