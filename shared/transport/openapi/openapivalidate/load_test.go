package openapivalidate

import (
	"context"
	"testing"
)

func TestLoad(t *testing.T) {
	doc, err := Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if doc.Info.Version != "1.0.0" {
		t.Errorf("info.version %q", doc.Info.Version)
	}
}
