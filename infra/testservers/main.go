// Command testservers runs a command beside one DynamoDB Local that every test
// package it starts may share:
//
//	go run ./infra/testservers -- go test ./...
//
// It picks a free port, starts the command at once with
// CALLSCRIBE_TEST_DYNAMODB_ENDPOINT naming it (package shared/testkit/awstest
// reads it in RunMain and StartT), and starts the JVM meanwhile: the packages
// take longer to build than the JVM takes to start, and each waits for the
// server before its first call. One JVM instead of one per package saves its
// start and its warm-up, several CPU-seconds each on a two-core machine.
//
// When DynamoDB Local fails to start, testservers says why, stops the command
// and exits 1; otherwise it exits with the command's status after stopping the
// server. SIGINT and SIGTERM are passed on to the command.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/callscribe/callscribe/shared/testkit/awstest"
)

func main() {
	os.Exit(run(os.Args[1:], awstest.Options{}))
}

// run runs args beside a DynamoDB Local started with opts (its port chosen
// here) and returns the exit status.
func run(args []string, opts awstest.Options) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: testservers -- command [args...]")
		return 2
	}
	port, err := awstest.FreePort()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testservers:", err)
		return 1
	}
	endpoint := fmt.Sprintf("http://127.0.0.1:%d", port)

	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), awstest.SharedDynamoDBEnv+"="+endpoint)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testservers:", err)
		return 1
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(signals)

	type started struct {
		servers *awstest.Servers
		err     error
	}
	ready := make(chan started, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		opts.DynamoDB, opts.DynamoDBPort = true, port
		s, err := awstest.Start(ctx, opts)
		ready <- started{s, err}
	}()

	var servers *awstest.Servers
	defer func() {
		if servers != nil {
			servers.Stop()
		}
	}()
	for {
		select {
		case r := <-ready:
			if r.err != nil {
				fmt.Fprintf(os.Stderr, "testservers: DynamoDB Local did not start: %v\n", r.err)
				_ = cmd.Process.Signal(syscall.SIGTERM)
				<-exited
				return 1
			}
			servers = r.servers
			ready = nil
		case sig := <-signals:
			_ = cmd.Process.Signal(sig)
		case err := <-exited:
			if ready != nil { // still starting: cancel the start, then stop what it began
				cancel()
				if r := <-ready; r.servers != nil {
					servers = r.servers
				}
			}
			var exit *exec.ExitError
			switch {
			case err == nil:
				return 0
			case errors.As(err, &exit):
				if code := exit.ExitCode(); code > 0 {
					return code
				}
				return 1
			default:
				fmt.Fprintln(os.Stderr, "testservers:", err)
				return 1
			}
		}
	}
}
