package functions_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/callscribe/callscribe/shared/transport/lambdaapi/inventory"
)

// inventoryVars maps each exported inventory value of package inventory
// (var Create = Function{Name: "create", ...}) to its Name, read from the
// source, so the test needs no second list of the functions.
func inventoryVars(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "shared", "transport", "lambdaapi", "inventory", "inventory.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok || len(spec.Names) != 1 || len(spec.Values) != 1 {
			return true
		}
		lit, ok := spec.Values[0].(*ast.CompositeLit)
		if !ok {
			return true
		}
		if id, isIdent := lit.Type.(*ast.Ident); !isIdent || id.Name != "Function" {
			return true
		}
		for _, el := range lit.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			if key, isIdent := kv.Key.(*ast.Ident); isIdent && key.Name == "Name" {
				if s, ok := kv.Value.(*ast.BasicLit); ok {
					vars[spec.Names[0].Name], _ = strconv.Unquote(s.Value)
				}
			}
		}
		return true
	})
	return vars
}

// served finds the call in main that starts the function: it returns the
// calling package ("lambdaapi", "workers" or "web") and the inventory value passed.
func served(t *testing.T, path string) (caller, value string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		fun, ok := call.Fun.(*ast.SelectorExpr)
		arg, isSel := call.Args[0].(*ast.SelectorExpr)
		if !ok || !isSel || fun.Sel.Name != "Serve" {
			return true
		}
		callerPkg, ok1 := fun.X.(*ast.Ident)
		argPkg, ok2 := arg.X.(*ast.Ident)
		if ok1 && ok2 && argPkg.Name == "inventory" {
			caller, value = callerPkg.Name, arg.Sel.Name
		}
		return true
	})
	return caller, value
}

// Each functions/<name>/main.go serves the inventory value whose Name is
// <name>, API functions through lambdaapi.Serve, workers through
// workers.Serve (which builds their providers) and the page through web.Serve; a main serving another
// function's value, or none, fails here (a misspelt value does not compile).
func TestEachMainServesItsOwnFunction(t *testing.T) {
	vars := inventoryVars(t)
	if len(vars) != len(inventory.Functions) {
		t.Fatalf("found %d inventory values in inventory.go, the inventory has %d", len(vars), len(inventory.Functions))
	}
	dirs, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		seen++
		f, ok := inventory.Lookup(d.Name())
		if !ok {
			t.Errorf("functions/%s is not in the inventory", d.Name())
			continue
		}
		caller, value := served(t, filepath.Join(d.Name(), "main.go"))
		if vars[value] != f.Name {
			t.Errorf("functions/%s/main.go serves inventory.%s (function %q), want the value named %q", d.Name(), value, vars[value], f.Name)
		}
		want := "lambdaapi"
		switch {
		case f.IsWorker():
			want = "workers"
		case len(f.Pages) > 0:
			want = "web"
		}
		if caller != want {
			t.Errorf("functions/%s/main.go starts through %s.Serve, want %s.Serve", d.Name(), caller, want)
		}
	}
	if seen != len(inventory.Functions) {
		t.Errorf("%d function directories, %d functions in the inventory", seen, len(inventory.Functions))
	}
}
