package functions_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/awslabs/goformation/v7"
	"github.com/awslabs/goformation/v7/cloudformation"
	"github.com/awslabs/goformation/v7/intrinsics"

	"github.com/callscribe/callscribe/shared/adapters/dynamodb"
	"github.com/callscribe/callscribe/shared/transport/httpapi"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/inventory"
)

const templatePath = "../template.yaml"

// parsed is template.yaml read by goformation with the intrinsic functions
// replaced by markers ("ref:X", "getatt:X.Attr", "sub:..."), so typed fields
// (policy table names, queue ARNs) show which resource they name, and every
// target is recorded for the existence check.
type parsed struct {
	tpl     *cloudformation.Template
	refs    map[string]bool // Ref targets and Sub ${X}
	getAtts map[string]bool // GetAtt resources and Sub ${X.Attr}
	raw     map[string]any  // the template as generic JSON (long-form intrinsics)
}

var (
	subVar       = regexp.MustCompile(`\$\{([^}!]+)\}`)
	retentionRef = regexp.MustCompile(`RetentionInDays: !Ref (\w+)`)
)

func parseTemplate(t *testing.T) *parsed {
	t.Helper()
	p := &parsed{refs: map[string]bool{}, getAtts: map[string]bool{}}
	data, err := os.ReadFile(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	js, err := intrinsics.ProcessYAML(data, &intrinsics.ProcessorOptions{NoProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &p.raw); err != nil {
		t.Fatal(err)
	}
	// goformation types a log group's RetentionInDays as an integer, which a
	// Ref marker cannot fill: the typed parse sees the parameter's default.
	params, _ := p.raw["Parameters"].(map[string]any)
	typed := retentionRef.ReplaceAllStringFunc(string(data), func(m string) string {
		name := retentionRef.FindStringSubmatch(m)[1]
		p.refs[name] = true
		prm, _ := params[name].(map[string]any)
		return "RetentionInDays: " + fmt.Sprint(prm["Default"])
	})
	opts := &intrinsics.ProcessorOptions{IntrinsicHandlerOverrides: map[string]intrinsics.IntrinsicHandler{
		"Ref": func(_ string, in any, _ any) any {
			s, _ := in.(string)
			p.refs[s] = true
			return "ref:" + s
		},
		"Fn::GetAtt": func(_ string, in any, _ any) any {
			var parts []string
			switch v := in.(type) {
			case string:
				parts = strings.SplitN(v, ".", 2)
			case []any:
				for _, x := range v {
					parts = append(parts, fmt.Sprint(x))
				}
			}
			if len(parts) != 2 {
				t.Errorf("malformed GetAtt %v", in)
				return ""
			}
			p.getAtts[parts[0]] = true
			return "getatt:" + parts[0] + "." + parts[1]
		},
		"Fn::Sub": func(_ string, in any, _ any) any {
			s, _ := in.(string)
			if arr, ok := in.([]any); ok && len(arr) > 0 {
				s, _ = arr[0].(string)
			}
			for _, m := range subVar.FindAllStringSubmatch(s, -1) {
				name, _, isAttr := strings.Cut(m[1], ".")
				if isAttr {
					p.getAtts[name] = true
				} else {
					p.refs[name] = true
				}
			}
			return "sub:" + s
		},
	}}
	tpl, err := goformation.ParseYAMLWithOptions([]byte(typed), opts)
	if err != nil {
		t.Fatalf("goformation cannot parse %s: %v", templatePath, err)
	}
	p.tpl = tpl
	return p
}

func (p *parsed) rawResource(logical string) map[string]any {
	res, _ := p.raw["Resources"].(map[string]any)
	r, _ := res[logical].(map[string]any)
	return r
}

func TestTemplateReferencesExist(t *testing.T) {
	p := parseTemplate(t)
	known := map[string]bool{"AWS::Region": true, "AWS::AccountId": true, "AWS::StackName": true, "AWS::Partition": true, "AWS::URLSuffix": true, "AWS::NoValue": true}
	for name := range p.tpl.Parameters {
		known[name] = true
	}
	for name := range p.tpl.Resources {
		known[name] = true
	}
	if len(p.refs) == 0 || len(p.getAtts) == 0 {
		t.Fatal("no Ref or GetAtt seen: the marker handlers did not run")
	}
	for r := range p.refs {
		if !known[r] {
			t.Errorf("Ref/Sub target %q is neither a parameter, a resource nor a pseudo parameter", r)
		}
	}
	for r := range p.getAtts {
		if _, ok := p.tpl.Resources[r]; !ok {
			t.Errorf("GetAtt/Sub target %q is not a resource", r)
		}
	}
}

// templateFunction finds the template function of an inventory entry by its CodeUri.
func templateFunctions(t *testing.T, p *parsed) map[string]string {
	t.Helper()
	byName := map[string]string{}
	for logical, fn := range p.tpl.GetAllServerlessFunctionResources() {
		if fn.CodeUri == nil || fn.CodeUri.String == nil {
			t.Errorf("%s: CodeUri is not a directory path", logical)
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(*fn.CodeUri.String, "functions/"), "/")
		if _, dup := byName[name]; dup {
			t.Errorf("two functions built from functions/%s", name)
		}
		byName[name] = logical
	}
	return byName
}

func TestTemplateFunctionsMatchInventory(t *testing.T) {
	p := parseTemplate(t)
	fns := p.tpl.GetAllServerlessFunctionResources()
	byName := templateFunctions(t, p)
	if len(byName) != len(inventory.Functions) {
		t.Errorf("template has %d functions, the inventory %d", len(byName), len(inventory.Functions))
	}
	routeOwner := map[string]string{} // "METHOD /path" -> function
	for _, f := range inventory.Functions {
		logical, ok := byName[f.Name]
		if !ok {
			t.Errorf("function %s is not in template.yaml", f.Name)
			continue
		}
		fn := fns[logical]
		if _, err := os.Stat(filepath.Join(f.Name, "main.go")); err != nil {
			t.Errorf("%s: CodeUri functions/%s/ has no main.go: %v", logical, f.Name, err)
		}
		if bm, _ := fn.AWSCloudFormationMetadata["BuildMethod"].(string); bm != "go1.x" {
			t.Errorf("%s: Metadata.BuildMethod = %q, want go1.x (sam build)", logical, bm)
		}
		var routes []string
		var sessionRoutes int
		defaultRoute := false
		rawEvents, _ := p.rawResource(logical)["Properties"].(map[string]any)["Events"].(map[string]any)
		for evName, ev := range rawEvents {
			ev := ev.(map[string]any)
			props, _ := ev["Properties"].(map[string]any)
			switch ev["Type"] {
			case "HttpApi":
				method, _ := props["Method"].(string)
				path, _ := props["Path"].(string)
				if method == "" && path == "" {
					defaultRoute = true
					continue
				}
				key := strings.ToUpper(method) + " " + path
				routes = append(routes, key)
				if prev, dup := routeOwner[key]; dup {
					t.Errorf("route %s is served by both %s and %s", key, prev, f.Name)
				}
				routeOwner[key] = f.Name
				if auth, ok := props["Auth"].(map[string]any); ok && auth["Authorizer"] == "CognitoAuthorizer" {
					sessionRoutes++
				}
			case "SQS":
				if !f.IsWorker() {
					t.Errorf("%s: API function has an SQS event %s", logical, evName)
					continue
				}
				q := fmt.Sprint(props["Queue"])
				want := strings.ToUpper(f.Queue[:1]) + f.Queue[1:] + "Queue"
				if !strings.Contains(q, want) {
					t.Errorf("%s: consumes %s, want %s", logical, q, want)
				}
				if frt, _ := props["FunctionResponseTypes"].([]any); !slices.Contains(frt, any("ReportBatchItemFailures")) {
					t.Errorf("%s: SQS event without FunctionResponseTypes: [ReportBatchItemFailures]", logical)
				}
			default:
				t.Errorf("%s: unexpected event type %v", logical, ev["Type"])
			}
		}
		want := append([]string(nil), f.Pages...)
		want = append(want, f.Routes...)
		sort.Strings(routes)
		sort.Strings(want)
		if !slices.Equal(routes, want) {
			t.Errorf("%s: template routes %v, inventory %v", logical, routes, want)
		}
		if f.Session && sessionRoutes != len(f.Routes) || !f.Session && sessionRoutes != 0 {
			t.Errorf("%s: %d of %d routes behind CognitoAuthorizer, want all=%v", logical, sessionRoutes, len(routes), f.Session)
		}
		if defaultRoute != f.Default {
			t.Errorf("%s: $default route = %v, want %v", logical, defaultRoute, f.Default)
		}
		if f.IsWorker() && len(rawEvents) != 1 {
			t.Errorf("%s: a worker has exactly one SQS event, got %d events", logical, len(rawEvents))
		}
	}

	// Every route of the spec and every route of the API (but the local identity
	// and health routes, which Cognito and API Gateway replace) has a function.
	spec, err := os.ReadFile("/work/shared/SPEC.md")
	if err != nil {
		spec, err = os.ReadFile("../SPEC.md")
	}
	if err == nil {
		for _, m := range regexp.MustCompile(`(?m)^#+\s+(GET|POST|DELETE|PUT|PATCH) (/\S+)`).FindAllStringSubmatch(string(spec), -1) {
			if _, ok := routeOwner[m[1]+" "+m[2]]; !ok {
				t.Errorf("spec route %s %s has no function in template.yaml", m[1], m[2])
			}
		}
	} else {
		t.Logf("SPEC.md not found; checking the API's routes only")
	}
	for _, r := range []httpapi.Route{
		httpapi.RouteCreateTranscription, httpapi.RouteListJobs, httpapi.RouteUsage, httpapi.RouteGetJob,
		httpapi.RouteDeleteJob, httpapi.RouteSummarize, httpapi.RouteTag, httpapi.RouteTaxonomy,
		httpapi.RouteCreateUpload, httpapi.RouteCreateAPIKey, httpapi.RouteListAPIKeys, httpapi.RouteRevokeAPIKey,
		httpapi.RouteExportJob, httpapi.RouteOpenAPI,
	} {
		if _, ok := routeOwner[string(r)]; !ok {
			t.Errorf("route %s has no function in template.yaml", r)
		}
	}
}

// access is what a function may do, per resource logical id.
type access map[string]string // resource -> "read" | "write" | "crud" | "send"

// want is the least-privilege table: what each function's code actually touches
// (shared/transport/httpapi handlers and shared/service/pipeline for its kinds). API-key routes
// read the api-keys table and write last_used_at.
var want = map[string]access{
	"create":               {"IdempotencyTable": "crud", "JobsTable": "crud", "UsageTable": "crud", "APIKeysTable": "read+write", "AudioBucket": "crud", "TranscriptionQueue": "send"},
	"list":                 {"SearchTable": "read", "JobsTable": "read", "APIKeysTable": "read+write"},
	"get":                  {"JobsTable": "read", "APIKeysTable": "read+write"},
	"delete":               {"SearchTable": "write", "JobsTable": "crud", "APIKeysTable": "read+write", "AudioBucket": "crud"},
	"usage":                {"UsageTable": "read"},
	"summarize":            {"SearchTable": "write", "IdempotencyTable": "crud", "JobsTable": "crud", "APIKeysTable": "read+write", "DerivedQueue": "send"},
	"tag":                  {"SearchTable": "write", "IdempotencyTable": "crud", "JobsTable": "crud", "APIKeysTable": "read+write", "DerivedQueue": "send"},
	"taxonomy":             {"APIKeysTable": "read+write"},
	"uploads":              {"IdempotencyTable": "crud", "APIKeysTable": "read+write", "AudioBucket": "write"},
	"apikeys":              {"APIKeysTable": "crud", "SigningSecretsTable": "crud"},
	"web":                  {},
	"dashboard":            {"SearchTable": "crud", "IdempotencyTable": "crud", "JobsTable": "crud", "UsageTable": "crud", "AudioBucket": "crud", "TranscriptionQueue": "send", "DerivedQueue": "send"},
	"fallback":             {"APIKeysTable": "read+write"},
	"transcription-worker": {"SearchTable": "write", "JobsTable": "crud", "UsageTable": "crud", "AudioBucket": "crud", "TranscriptionQueue": "send"},
	"derived-worker":       {"SearchTable": "write", "JobsTable": "crud", "DerivedQueue": "send", "CallbackQueue": "send"},
	"callback-worker":      {"JobsTable": "read+write", "SigningSecretsTable": "crud", "CallbackQueue": "send"},
}

// envResource maps the resource environment variables to what they name.
var envResource = map[string]string{
	"JOBS_TABLE": "JobsTable", "USAGE_TABLE": "UsageTable", "API_KEYS_TABLE": "APIKeysTable", "ACCOUNTS_TABLE": "AccountsTable", "IDEMPOTENCY_TABLE": "IdempotencyTable", "SEARCH_TABLE": "SearchTable",
	"SIGNING_SECRETS_TABLE": "SigningSecretsTable",
	"AUDIO_BUCKET":          "AudioBucket", "TRANSCRIPTION_QUEUE_URL": "TranscriptionQueue", "DERIVED_QUEUE_URL": "DerivedQueue", "CALLBACK_QUEUE_URL": "CallbackQueue",
}

func TestTemplatePoliciesAreLeastPrivilege(t *testing.T) {
	p := parseTemplate(t)
	fns := p.tpl.GetAllServerlessFunctionResources()
	byName := templateFunctions(t, p)
	for name, exp := range want {
		logical := byName[name]
		fn := fns[logical]
		if fn == nil {
			t.Errorf("function %s missing", name)
			continue
		}
		got := access{}
		add := func(res, level string) {
			if got[res] != "" {
				level = got[res] + "+" + level
			}
			got[res] = level
		}
		target := func(s string) string { // "ref:X" / "getatt:X.QueueName" -> X
			s = strings.TrimPrefix(strings.TrimPrefix(s, "ref:"), "getatt:")
			s, _, _ = strings.Cut(s, ".")
			return s
		}
		if fn.Policies == nil || fn.Policies.SAMPolicyTemplateArray == nil {
			// Only a function that touches no resource may have no policy at all.
			if len(want[name]) != 0 {
				t.Errorf("%s: no SAM policy templates", logical)
			}
			continue
		}
		for _, pt := range *fn.Policies.SAMPolicyTemplateArray {
			switch {
			case pt.DynamoDBCrudPolicy != nil:
				add(target(pt.DynamoDBCrudPolicy.TableName), "crud")
			case pt.DynamoDBReadPolicy != nil:
				add(target(pt.DynamoDBReadPolicy.TableName), "read")
			case pt.DynamoDBWritePolicy != nil:
				add(target(pt.DynamoDBWritePolicy.TableName), "write")
			case pt.S3CrudPolicy != nil:
				add(target(pt.S3CrudPolicy.BucketName), "crud")
			case pt.S3ReadPolicy != nil:
				add(target(pt.S3ReadPolicy.BucketName), "read")
			case pt.S3WritePolicy != nil:
				add(target(pt.S3WritePolicy.BucketName), "write")
			case pt.SQSSendMessagePolicy != nil:
				add(target(pt.SQSSendMessagePolicy.QueueName), "send")
			case pt.SQSPollerPolicy != nil:
				t.Errorf("%s: SQSPollerPolicy is added by the SQS event source; do not grant it by hand", logical)
			}
		}
		// Inline statements: only the provider APIs, never our tables/bucket/queues.
		if docs := fn.Policies.IAMPolicyDocumentArray; docs != nil {
			for _, d := range *docs {
				b, _ := json.Marshal(d)
				s := string(b)
				if strings.Contains(s, "dynamodb:") || strings.Contains(s, "s3:") || strings.Contains(s, "sqs:") || strings.Contains(s, `"*"`) {
					t.Errorf("%s: inline statement reaches our data stores or all resources: %s", logical, s)
				}
			}
		}
		for res, level := range exp {
			if got[res] != level {
				t.Errorf("%s: %s access %q, want %q", logical, res, got[res], level)
			}
		}
		for res, level := range got {
			if _, ok := exp[res]; !ok {
				t.Errorf("%s: has %s access to %s, which its code does not use", logical, level, res)
			}
		}
		// The function is told exactly the resources it may use.
		envGot := map[string]bool{}
		if fn.Environment != nil {
			for k, v := range fn.Environment.Variables {
				if res, ok := envResource[k]; ok {
					if target(v) != res {
						t.Errorf("%s: %s names %s, want %s", logical, k, v, res)
					}
					envGot[res] = true
				}
			}
		}
		for res := range exp {
			if !envGot[res] {
				t.Errorf("%s: may use %s but has no environment variable naming it", logical, res)
			}
		}
		for res := range envGot {
			if _, ok := exp[res]; !ok {
				t.Errorf("%s: environment names %s without a policy for it", logical, res)
			}
		}
	}
	// Read-only API functions send nothing.
	for _, name := range []string{"list", "get", "usage", "taxonomy", "fallback"} {
		for res, level := range want[name] {
			if level == "send" {
				t.Errorf("%s may send to %s", name, res)
			}
		}
	}
}

func TestTemplateTablesMatchCreateTables(t *testing.T) {
	p := parseTemplate(t)
	tables := p.tpl.GetAllDynamoDBTableResources()
	names := dynamodb.TableNames{Jobs: "JobsTable", Usage: "UsageTable", Accounts: "AccountsTable", APIKeys: "APIKeysTable", Idempotency: "IdempotencyTable", SigningSecrets: "SigningSecretsTable", Search: "SearchTable"}
	for _, def := range dynamodb.TableDefinitions(names) {
		logical := aws.ToString(def.TableName)
		tbl, ok := tables[logical]
		if logical == names.Accounts {
			// Cognito owns accounts on AWS; nothing may depend on this table there.
			if ok {
				t.Errorf("template declares %s, which no AWS function uses", logical)
			}
			continue
		}
		if !ok {
			t.Errorf("table %s missing from template.yaml", logical)
			continue
		}
		key := func(ks []string) string { return strings.Join(ks, ",") }
		var gotKey, wantKey []string
		for _, k := range tbl.KeySchema {
			gotKey = append(gotKey, k.AttributeName+":"+k.KeyType)
		}
		for _, k := range def.KeySchema {
			wantKey = append(wantKey, aws.ToString(k.AttributeName)+":"+string(k.KeyType))
		}
		if key(gotKey) != key(wantKey) {
			t.Errorf("%s key %v, want %v", logical, gotKey, wantKey)
		}
		var gotAttrs, wantAttrs []string
		for _, a := range tbl.AttributeDefinitions {
			gotAttrs = append(gotAttrs, a.AttributeName+":"+a.AttributeType)
		}
		for _, a := range def.AttributeDefinitions {
			wantAttrs = append(wantAttrs, aws.ToString(a.AttributeName)+":"+string(a.AttributeType))
		}
		sort.Strings(gotAttrs)
		sort.Strings(wantAttrs)
		if key(gotAttrs) != key(wantAttrs) {
			t.Errorf("%s attributes %v, want %v", logical, gotAttrs, wantAttrs)
		}
		var gotIdx, wantIdx []string
		for _, g := range tbl.GlobalSecondaryIndexes {
			var ks []string
			for _, k := range g.KeySchema {
				ks = append(ks, k.AttributeName+":"+k.KeyType)
			}
			gotIdx = append(gotIdx, g.IndexName+"("+key(ks)+")"+aws.ToString(g.Projection.ProjectionType)+fmt.Sprint(g.Projection.NonKeyAttributes))
		}
		for _, g := range def.GlobalSecondaryIndexes {
			var ks []string
			for _, k := range g.KeySchema {
				ks = append(ks, aws.ToString(k.AttributeName)+":"+string(k.KeyType))
			}
			wantIdx = append(wantIdx, aws.ToString(g.IndexName)+"("+key(ks)+")"+string(g.Projection.ProjectionType)+fmt.Sprint(g.Projection.NonKeyAttributes))
		}
		sort.Strings(gotIdx)
		sort.Strings(wantIdx)
		if key(gotIdx) != key(wantIdx) {
			t.Errorf("%s indexes %v, want %v", logical, gotIdx, wantIdx)
		}
		if aws.ToString(tbl.BillingMode) != string(def.BillingMode) {
			t.Errorf("%s billing %v, want %v", logical, aws.ToString(tbl.BillingMode), def.BillingMode)
		}
	}
	jobs := tables["JobsTable"]
	if jobs == nil || jobs.TimeToLiveSpecification == nil || !jobs.TimeToLiveSpecification.Enabled ||
		aws.ToString(jobs.TimeToLiveSpecification.AttributeName) != dynamodb.TTLAttribute {
		t.Errorf("JobsTable must have TTL on %s (deleted jobs are purged by TTL)", dynamodb.TTLAttribute)
	}
}

func TestTemplateBucketQueuesAndGlobals(t *testing.T) {
	p := parseTemplate(t)
	b, err := p.tpl.GetS3BucketWithName("AudioBucket")
	if err != nil {
		t.Fatal(err)
	}
	if b.BucketEncryption == nil || len(b.BucketEncryption.ServerSideEncryptionConfiguration) == 0 {
		t.Error("AudioBucket has no default encryption")
	}
	pab := b.PublicAccessBlockConfiguration
	if pab == nil || !aws.ToBool(pab.BlockPublicAcls) || !aws.ToBool(pab.BlockPublicPolicy) || !aws.ToBool(pab.IgnorePublicAcls) || !aws.ToBool(pab.RestrictPublicBuckets) {
		t.Error("AudioBucket does not block all public access")
	}
	expiresUploads := false
	if b.LifecycleConfiguration != nil {
		for _, r := range b.LifecycleConfiguration.Rules {
			if aws.ToString(r.Prefix) == "uploads/" && aws.ToInt(r.ExpirationInDays) == 1 && r.Status == "Enabled" {
				expiresUploads = true
			}
		}
	}
	if !expiresUploads {
		t.Error("AudioBucket has no lifecycle rule expiring uploads/ after 1 day")
	}

	queues := p.tpl.GetAllSQSQueueResources()
	alarms := p.tpl.GetAllCloudWatchAlarmResources()
	for _, q := range []string{"TranscriptionQueue", "DerivedQueue", "CallbackQueue"} {
		queue := queues[q]
		if queue == nil {
			t.Errorf("queue %s missing", q)
			continue
		}
		redrive, _ := queue.RedrivePolicy.(map[string]any)
		dlq := strings.TrimSuffix(q, "Queue") + "DLQ"
		if fmt.Sprint(redrive["deadLetterTargetArn"]) != "getatt:"+dlq+".Arn" {
			t.Errorf("%s redrives to %v, want %s", q, redrive["deadLetterTargetArn"], dlq)
		}
		alarmed := false
		for _, a := range alarms {
			for _, d := range a.Dimensions {
				if d.Value == "getatt:"+dlq+".QueueName" {
					alarmed = true
				}
			}
		}
		if !alarmed {
			t.Errorf("no alarm on the depth of %s", dlq)
		}
	}

	g, _ := p.raw["Globals"].(map[string]any)["Function"].(map[string]any)
	if g["Runtime"] != "provided.al2023" || g["Handler"] != "bootstrap" || fmt.Sprint(g["Architectures"]) != "[arm64]" {
		t.Errorf("Globals.Function: Runtime %v, Handler %v, Architectures %v", g["Runtime"], g["Handler"], g["Architectures"])
	}
	for _, name := range []string{"GatewayKey", "SessionSecret", "OpenAIAPIKey"} {
		if prm, ok := p.tpl.Parameters[name]; !ok || !aws.ToBool(prm.NoEcho) {
			t.Errorf("parameter %s must exist with NoEcho", name)
		}
	}
	for _, name := range []string{"Transcriber", "Summarizer", "Tagger", "BedrockModelId", "QuotaMinutes", "RetentionDays", "CallbackBackoffBase"} {
		if _, ok := p.tpl.Parameters[name]; !ok {
			t.Errorf("parameter %s missing", name)
		}
	}
	if tr := p.tpl.Parameters["Transcriber"]; tr.Default != "aws-transcribe" || slices.Contains(tr.AllowedValues, any("sphinx")) {
		t.Errorf("Transcriber default %v / allowed %v: sphinx needs cgo, absent from the Lambda build", tr.Default, tr.AllowedValues)
	}
}
