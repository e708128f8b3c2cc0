package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

func TestPendingJobIDsListsJobWorkOnly(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "q.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, m := range []callscribe.Message{
		{Kind: callscribe.KindTranscribe, JobID: "a"},
		{Kind: callscribe.KindDerive, JobID: "b"},
		{Kind: callscribe.KindDeliverCallback, JobID: "c", Attempt: 1},
	} {
		if err := db.Queue().Enqueue(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Queue().PendingJobIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !got["a"] || !got["b"] || got["c"] {
		t.Fatalf("pending %v, want a and b only", got)
	}
}
