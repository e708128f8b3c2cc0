package functions_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/transport/lambdaapi/inventory"
)

const module = "github.com/callscribe/callscribe/"

// httpTransport is what serves HTTP: the API's handlers and their OpenAPI
// document, the dashboard, and the API Gateway adapter. A worker is triggered
// by SQS only and links none of it. (Package service/ratelimit is not listed:
// the jobs service, which the workers run on, throttles sign-in attempts with
// it, so it is linked through the service, not through the transport.)
var httpTransport = []string{
	module + "shared/transport/httpapi",
	module + "shared/transport/openapi",
	module + "shared/transport/dashboard",
	"github.com/awslabs/aws-lambda-go-api-proxy",
}

// linked lists the packages the function links as `make build` builds it
// (linux/arm64, CGO_ENABLED=0, -tags lambda.norpc).
func linked(t *testing.T, function string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath", "-tags", "lambda.norpc", "./"+function)
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./functions/%s: %v", function, err)
	}
	var pkgs []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ ImportPath string }
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p.ImportPath)
	}
	return pkgs
}

// httpPackages are the packages of pkgs that belong to the HTTP transport.
func httpPackages(pkgs []string) []string {
	var found []string
	for _, p := range pkgs {
		for _, h := range httpTransport {
			if p == h || strings.HasPrefix(p, h+"/") {
				found = append(found, p)
			}
		}
	}
	return found
}

// Every worker of the inventory links no HTTP transport: it would only grow
// its bootstrap and its init. An API function does link it, which shows the
// check sees these packages when they are there.
func TestWorkersLinkNoHTTPTransport(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go tool is needed to list what each function links: %v", err)
	}
	workers := 0
	for _, f := range inventory.Functions {
		if !f.IsWorker() {
			continue
		}
		workers++
		if found := httpPackages(linked(t, f.Name)); len(found) > 0 {
			t.Errorf("worker %s links the HTTP transport: %v", f.Name, found)
		}
	}
	if workers == 0 {
		t.Error("the inventory has no worker")
	}
	if found := httpPackages(linked(t, inventory.Create.Name)); !slices.Contains(found, module+"shared/transport/httpapi") {
		t.Errorf("API function %s does not link httpapi by this check (found %v)", inventory.Create.Name, found)
	}
}
