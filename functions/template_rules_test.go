package functions_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// The rules below are the ones a CloudFormation linter's informational checks
// report and that matter for a stack holding users' data. cfn-lint itself does
// not install here (the npm package of that name is a different, stale tool
// that rejects valid SAM), so they are written out as tests over the parsed
// template.

// statefulTypes hold data that a stack replacement or deletion would destroy.
var statefulTypes = []string{"AWS::Cognito::UserPool", "AWS::DynamoDB::Table", "AWS::S3::Bucket", "AWS::SQS::Queue"}

func rawResources(p *parsed) map[string]map[string]any {
	out := map[string]map[string]any{}
	res, _ := p.raw["Resources"].(map[string]any)
	for name, r := range res {
		m, _ := r.(map[string]any)
		out[name] = m
	}
	return out
}

func props(r map[string]any) map[string]any {
	m, _ := r["Properties"].(map[string]any)
	return m
}

func TestTemplateRetainsEveryStatefulResource(t *testing.T) {
	p := parseTemplate(t)
	seen := 0
	for name, r := range rawResources(p) {
		if !slices.Contains(statefulTypes, fmt.Sprint(r["Type"])) {
			continue
		}
		seen++
		if r["DeletionPolicy"] != "Retain" || r["UpdateReplacePolicy"] != "Retain" {
			t.Errorf("%s (%s): DeletionPolicy %v, UpdateReplacePolicy %v; want Retain for both", name, r["Type"], r["DeletionPolicy"], r["UpdateReplacePolicy"])
		}
	}
	// The user pool, five tables, the bucket, three queues and their DLQs.
	if seen != 14 {
		t.Errorf("%d stateful resources, want 14: a new one needs the retain rule (and this count)", seen)
	}
}

func TestTemplateTablesHaveRecoveryAndEncryption(t *testing.T) {
	p := parseTemplate(t)
	for name, r := range rawResources(p) {
		if r["Type"] != "AWS::DynamoDB::Table" {
			continue
		}
		pitr, _ := props(r)["PointInTimeRecoverySpecification"].(map[string]any)
		if pitr["PointInTimeRecoveryEnabled"] != true {
			t.Errorf("%s has no point-in-time recovery", name)
		}
		sse, _ := props(r)["SSESpecification"].(map[string]any)
		if sse["SSEEnabled"] != true {
			t.Errorf("%s is not encrypted with SSE", name)
		}
	}
}

func TestTemplateLogsHaveRetention(t *testing.T) {
	p := parseTemplate(t)
	res := rawResources(p)
	g, _ := p.raw["Globals"].(map[string]any)["Function"].(map[string]any)
	lc, _ := g["LoggingConfig"].(map[string]any)
	ref, _ := lc["LogGroup"].(map[string]any)
	groupName := fmt.Sprint(ref["Ref"])
	group := res[groupName]
	if group["Type"] != "AWS::Logs::LogGroup" {
		t.Fatalf("Globals.Function.LoggingConfig.LogGroup is %v, want a Ref to a log group of this template", lc["LogGroup"])
	}
	retention, _ := props(group)["RetentionInDays"].(map[string]any)
	param := fmt.Sprint(retention["Ref"])
	prm, _ := p.raw["Parameters"].(map[string]any)[param].(map[string]any)
	if prm == nil {
		t.Fatalf("%s.RetentionInDays is %v, want a Ref to a parameter", groupName, props(group)["RetentionInDays"])
	}
	allowed, _ := prm["AllowedValues"].([]any)
	if !slices.ContainsFunc(allowed, func(v any) bool { return fmt.Sprint(v) == fmt.Sprint(prm["Default"]) }) {
		t.Errorf("parameter %s: default %v is not one of the retention periods CloudWatch accepts %v", param, prm["Default"], allowed)
	}
	for name, r := range res {
		if r["Type"] != "AWS::Serverless::Function" {
			continue
		}
		if _, own := props(r)["LoggingConfig"]; own {
			t.Errorf("%s sets its own LoggingConfig: its logs would bypass %s's retention", name, groupName)
		}
	}
}

func TestTemplateAlarmsNotifySomeone(t *testing.T) {
	p := parseTemplate(t)
	res := rawResources(p)
	alarms := 0
	for name, r := range res {
		if r["Type"] != "AWS::CloudWatch::Alarm" {
			continue
		}
		alarms++
		actions, _ := props(r)["AlarmActions"].([]any)
		if len(actions) == 0 {
			t.Errorf("alarm %s has no AlarmActions: nobody is told", name)
		}
	}
	if alarms == 0 {
		t.Fatal("no alarms in the template")
	}
	params, _ := p.raw["Parameters"].(map[string]any)
	for _, name := range []string{"AlarmTopicArn", "AlarmEmail"} {
		if prm, _ := params[name].(map[string]any); prm == nil || prm["Default"] != "" {
			t.Errorf("parameter %s must exist and be optional (default empty)", name)
		}
	}
	topic := res["AlarmTopic"]
	if topic["Type"] != "AWS::SNS::Topic" || topic["Condition"] != "CreateAlarmTopic" {
		t.Errorf("AlarmTopic: %v; want an SNS topic made only when no AlarmTopicArn is given", topic)
	}
	sub := res["AlarmEmailSubscription"]
	if sub["Type"] != "AWS::SNS::Subscription" || sub["Condition"] == nil || props(sub)["Protocol"] != "email" {
		t.Errorf("AlarmEmailSubscription: %v; want an e-mail subscription under a condition", sub)
	}
}

func TestTemplateConditionsAreDefinedAndUsed(t *testing.T) {
	p := parseTemplate(t)
	defined, _ := p.raw["Conditions"].(map[string]any)
	used := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && k == "Condition" {
					used[s] = true
				}
				if arr, ok := e.([]any); ok && k == "Fn::If" && len(arr) > 0 {
					used[fmt.Sprint(arr[0])] = true
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(p.raw["Resources"])
	walk(p.raw["Outputs"])
	walk(defined)
	for name := range used {
		if _, ok := defined[name]; !ok {
			t.Errorf("condition %s is used but not defined", name)
		}
	}
	for name := range defined {
		if !used[name] {
			t.Errorf("condition %s is defined but never used", name)
		}
	}
}

func TestTemplateQueuesKeepMessagesLongEnough(t *testing.T) {
	p := parseTemplate(t)
	res := rawResources(p)
	retention := func(name string) int {
		n, ok := props(res[name])["MessageRetentionPeriod"].(float64)
		if !ok {
			t.Errorf("%s has no explicit MessageRetentionPeriod", name)
		}
		return int(n)
	}
	for _, q := range []string{"TranscriptionQueue", "DerivedQueue", "CallbackQueue"} {
		dlq := q[:len(q)-len("Queue")] + "DLQ"
		main, dead := retention(q), retention(dlq)
		// A message's age counts from its first send: a dead-letter queue that
		// keeps messages no longer than its source could drop one on arrival.
		if dead <= main {
			t.Errorf("%s keeps messages %d s, not longer than %s's %d s", dlq, dead, q, main)
		}
		redrive, _ := props(res[q])["RedrivePolicy"].(map[string]any)
		if n, _ := redrive["maxReceiveCount"].(float64); int(n) != callscribe.QueueMaxReceives {
			t.Errorf("%s moves a message to its dead-letter queue after %v receives, want callscribe.QueueMaxReceives (%d): the delivery after the last job attempt must still reach the worker", q, redrive["maxReceiveCount"], callscribe.QueueMaxReceives)
		}
		if main < 24*3600 {
			t.Errorf("%s keeps messages %d s: less than a day drops work during an outage", q, main)
		}
	}
}
