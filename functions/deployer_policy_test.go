package functions_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// The deployer's IAM policy (infra/aws/deployer-policy.json, README
// "Deploying") must let `sam deploy` create every kind of resource the
// template declares: a new resource type without its service here fails
// the first deploy of whoever follows the README.
func TestDeployerPolicyCoversTemplate(t *testing.T) {
	data, err := os.ReadFile("../infra/aws/deployer-policy.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version   string
		Statement []struct {
			Effect string
			Action []string
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("deployer policy is not valid JSON: %v", err)
	}
	allowed := map[string]bool{}
	for _, s := range doc.Statement {
		if s.Effect != "Allow" {
			t.Errorf("statement with effect %q", s.Effect)
		}
		for _, a := range s.Action {
			allowed[a] = true
		}
	}
	// What creating one resource of each type takes (its create action).
	creates := map[string][]string{
		"AWS::Serverless::Function":    {"lambda:CreateFunction", "iam:CreateRole", "iam:PassRole", "lambda:CreateEventSourceMapping"},
		"AWS::Serverless::HttpApi":     {"apigateway:POST"},
		"AWS::Cognito::UserPool":       {"cognito-idp:CreateUserPool"},
		"AWS::Cognito::UserPoolClient": {"cognito-idp:CreateUserPoolClient"},
		"AWS::DynamoDB::Table":         {"dynamodb:CreateTable", "dynamodb:UpdateContinuousBackups", "dynamodb:UpdateTimeToLive"},
		"AWS::S3::Bucket":              {"s3:CreateBucket", "s3:PutLifecycleConfiguration", "s3:PutBucketCORS"},
		"AWS::S3::BucketPolicy":        {"s3:PutBucketPolicy"},
		"AWS::SQS::Queue":              {"sqs:CreateQueue", "sqs:SetQueueAttributes"},
		"AWS::SNS::Topic":              {"sns:CreateTopic"},
		"AWS::SNS::Subscription":       {"sns:Subscribe"},
		"AWS::CloudWatch::Alarm":       {"cloudwatch:PutMetricAlarm"},
		"AWS::Logs::LogGroup":          {"logs:CreateLogGroup", "logs:PutRetentionPolicy"},
	}
	for _, a := range []string{"cloudformation:CreateChangeSet", "cloudformation:ExecuteChangeSet", "s3:PutObject"} {
		if !allowed[a] {
			t.Errorf("sam deploy needs %s", a)
		}
	}
	p := parseTemplate(t)
	for name, r := range rawResources(p) {
		typ := fmt.Sprint(r["Type"])
		need, known := creates[typ]
		if !known {
			t.Errorf("%s has type %s, which this test does not know: add its create actions here and to the policy", name, typ)
			continue
		}
		for _, a := range need {
			if !allowed[a] {
				t.Errorf("%s (%s) needs %s, missing from the deployer policy", name, typ, a)
			}
			if !strings.Contains(a, ":") {
				t.Errorf("malformed action %q", a)
			}
		}
	}
}
