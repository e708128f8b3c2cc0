package main

import "github.com/alecthomas/kong"

// Globals are the flags every command takes.
type Globals struct {
	BaseURL    string           `name:"base-url" help:"Service URL (env CALLSCRIBE_BASE_URL; default http://127.0.0.1:8080)." placeholder:"URL"`
	APIKey     string           `name:"api-key" help:"API key for the /v1 routes (env CALLSCRIBE_API_KEY, or one saved by 'keys create --save')." placeholder:"KEY"`
	GatewayKey string           `name:"gateway-key" help:"API gateway key sent as the apikey header (env CALLSCRIBE_GATEWAY_KEY)." placeholder:"KEY"`
	Config     string           `name:"config" help:"Config file (env CALLSCRIBE_CONFIG; default: the user config dir's callscribe/config.json)." placeholder:"FILE" type:"path"`
	JSON       bool             `name:"json" help:"Machine-readable output: JSON on stdout, and errors as the API's error JSON on stderr."`
	Quiet      bool             `name:"quiet" short:"q" help:"No progress or status lines on stderr (errors are still printed)."`
	Version    kong.VersionFlag `name:"version" help:"Print the CLI and client library versions and exit."`
}
