package main

// Globals are the flags every command takes.
type Globals struct {
	BaseURL    string `name:"base-url" help:"Service URL (env CALLSCRIBE_BASE_URL; default http://127.0.0.1:8080)." placeholder:"URL"`
	APIKey     string `name:"api-key" help:"API key for the /v1 routes (env CALLSCRIBE_API_KEY, or one saved by 'keys create --save')." placeholder:"KEY"`
	GatewayKey string `name:"gateway-key" help:"API gateway key sent as the apikey header (env CALLSCRIBE_GATEWAY_KEY)." placeholder:"KEY"`
	Config     string `name:"config" help:"Config file (env CALLSCRIBE_CONFIG; default: the user config dir's callscribe/config.json)." placeholder:"FILE" type:"path"`
}
