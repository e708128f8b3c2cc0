package awstest

import (
	"context"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// TestStartAndStop starts all three servers, makes one SDK call to each, and
// checks that Stop leaves no server process behind.
func TestStartAndStop(t *testing.T) {
	ctx := context.Background()
	began := time.Now()
	s, err := Start(ctx, Options{DynamoDB: true, SQS: true, S3: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("started in %s: dynamodb %s, sqs %s, s3 %s", time.Since(began).Round(time.Millisecond), s.DynamoDBEndpoint, s.SQSEndpoint, s.S3Endpoint)
	defer s.Stop()

	if _, err := dynamodb.NewFromConfig(s.DynamoDBConfig()).ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Errorf("dynamodb ListTables: %v", err)
	}
	if _, err := sqs.NewFromConfig(s.SQSConfig()).ListQueues(ctx, &sqs.ListQueuesInput{}); err != nil {
		t.Errorf("sqs ListQueues: %v", err)
	}
	if _, err := s3.NewFromConfig(s.S3Config(), func(o *s3.Options) { o.UsePathStyle = true }).ListBuckets(ctx, &s3.ListBucketsInput{}); err != nil {
		t.Errorf("s3 ListBuckets: %v", err)
	}

	// A second Servers on the first's DynamoDB Local and local-aws-sqs uses
	// them and, stopped, leaves them running.
	shared, err := Start(ctx, Options{DynamoDBAt: s.DynamoDBEndpoint, SQSAt: s.SQSEndpoint, S3: true})
	if err != nil {
		t.Fatal(err)
	}
	if shared.DynamoDBEndpoint != s.DynamoDBEndpoint || shared.SQSEndpoint != s.SQSEndpoint || shared.S3Endpoint == s.S3Endpoint || shared.S3Endpoint == "" {
		t.Errorf("servers on the running ones: dynamodb %s, sqs %s, s3 %s; want the first's DynamoDB and SQS and an S3 of its own",
			shared.DynamoDBEndpoint, shared.SQSEndpoint, shared.S3Endpoint)
	}
	shared.Stop()
	if _, err := dynamodb.NewFromConfig(s.DynamoDBConfig()).ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Errorf("dynamodb ListTables after the second Servers stopped: %v", err)
	}
	if _, err := sqs.NewFromConfig(s.SQSConfig()).ListQueues(ctx, &sqs.ListQueuesInput{}); err != nil {
		t.Errorf("sqs ListQueues after the second Servers stopped: %v", err)
	}

	port := strings.TrimPrefix(s.DynamoDBEndpoint, "http://127.0.0.1:")
	s.Stop()
	s.Stop() // idempotent
	out, _ := exec.Command("pgrep", "-f", "DynamoDBLocal.jar.*-port "+port+"$").Output()
	if len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("DynamoDB Local on port %s still running after Stop: pids %s", port, out)
	}
}

// TestMissingInstallFailsLoudly points Start at a checkout without node_modules:
// it must fail and name the command that installs the servers, never skip.
func TestMissingInstallFailsLoudly(t *testing.T) {
	root := t.TempDir()
	if err := exec.Command("cp", "-r", "../../../infra", root+"/infra").Run(); err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("rm", "-rf", root+"/infra/awsemulator/node_modules").Run(); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Options{DynamoDB: true, SQS: true, RepoRoot: root})
	if err == nil || !strings.Contains(err.Error(), "make deps-aws") {
		t.Fatalf("Start without installed servers: got %v, want an error naming make deps-aws", err)
	}
}

// A server said to be running that does not answer fails Start, naming it.
func TestRunningServerThatDoesNotAnswer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + l.Addr().String()
	l.Close() // nothing listens there now
	_, err = Start(context.Background(), Options{DynamoDBAt: endpoint, StartTimeout: 500 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), endpoint) {
		t.Fatalf("Start on a DynamoDB that is not there: got %v, want an error naming %s", err, endpoint)
	}
}
