// Command backfill-listing gives the jobs of an existing DynamoDB jobs table
// the keys of the filtered listing indexes (account-status-index,
// account-type-index, account-language-index, account-source-index), which
// jobs written before those indexes existed lack, so that status, type,
// language and source_job_id filters list them. A new deployment never needs
// it. After the stack updates that add the indexes (CloudFormation adds one
// per update), run it once with the stack's credentials:
//
//	JOBS_TABLE=<stack>-jobs AWS_REGION=eu-west-1 go run ./infra/backfill-listing
//
// It Scans the table once and updates only items missing a key; running it
// again updates nothing. AWS_ENDPOINT_URL_DYNAMODB points it at DynamoDB Local.
//
// With SEARCH_TABLE (the stack's search table) it then writes the search
// terms of every live job (dynamodb.JobStore.BackfillSearchTerms), once after
// the stack update that adds that table, so jobs stored before it are found
// by q; it Scans the jobs table again and is idempotent.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/aws/aws-sdk-go-v2/config"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/callscribe/callscribe/shared/adapters/dynamodb"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	table := os.Getenv("JOBS_TABLE")
	if table == "" {
		fmt.Fprintln(os.Stderr, "backfill-listing: JOBS_TABLE (the stack's jobs table) is required")
		os.Exit(2)
	}
	awsCfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "backfill-listing: loading AWS credentials:", err)
		os.Exit(1)
	}
	if err := backfill(ctx, ddb.NewFromConfig(awsCfg), table, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "backfill-listing:", err)
		os.Exit(1)
	}
	if search := os.Getenv("SEARCH_TABLE"); search != "" {
		store := dynamodb.NewJobStore(ddb.NewFromConfig(awsCfg), dynamodb.TableNames{Jobs: table, Search: search}, 0)
		n, err := store.BackfillSearchTerms(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, "backfill-listing: search terms:", err)
			os.Exit(1)
		}
		fmt.Printf("%s: %d jobs given their search terms in %s\n", table, n, search)
	}
}

// backfill runs the store's backfill on table and says how many jobs it gave keys.
func backfill(ctx context.Context, client *ddb.Client, table string, out io.Writer) error {
	if table == "" {
		return errors.New("no jobs table named")
	}
	store := dynamodb.NewJobStore(client, dynamodb.TableNames{Jobs: table}, 0)
	n, err := store.BackfillListingKeys(ctx)
	if err != nil {
		return fmt.Errorf("backfilling %s: %w", table, err)
	}
	_, err = fmt.Fprintf(out, "%s: %d jobs given their listing keys\n", table, n)
	return err
}
